"""latest.md: the report's header line and every section's table, in the report's order (each section module
renders its own table)."""
from sections.batch import batch_markdown
from sections.convert import convert_markdown
from sections.dask import dask_markdown
from sections.hostile import hostile_markdown
from sections.flow import flow_markdown
from sections.upload_live import upload_live_markdown
from sections.outbox_faults import outbox_markdown
from sections.loudness import loudness_markdown
from sections.cleanup import cleanup_markdown
from sections.desktop import desktop_markdown
from sections.transcripts import transcripts_markdown
from sections.json_parsing import json_markdown
from sections.long import long_markdown
from sections.player import player_markdown
from sections.recorder_cpu import recorder_cpu_markdown
from sections.recorder_latency import recorder_latency_markdown
from sections.remote import remote_markdown
from sections.size import library_size_markdown
from sections.upload import upload_markdown
from sections.waveform import waveform_markdown


def report_markdown(report: dict) -> str:
    """latest.md from latest.json's report: a header line, then every section present (carried-over ones marked)."""
    info = report["machine"]
    load = " / ".join(f"{value:.2f}" for value in (info["load_average_at_start"][0], info["load_average_at_end"][0]))
    text = (f"`make bench`: {info['cpus']} CPUs ({info['cpu']}), load {load} at start / end, "
            f"{report['seconds']:.0f} s{' (--quick)' if report['quick'] else ''}, {report['date']}, tree "
            f"{info.get('git')}; sections run: {', '.join(report['sections_run'])}.\n")
    renderers = (("waveform", waveform_markdown), ("batch", batch_markdown), ("long", long_markdown),
                 ("dask", dask_markdown),
                 ("recorder_cpu", recorder_cpu_markdown), ("recorder_latency", recorder_latency_markdown),
                 ("hostile_input", hostile_markdown), ("json_parsing", json_markdown), ("flow", flow_markdown),
                 ("player", player_markdown), ("remote", remote_markdown), ("upload", upload_markdown),
                 ("upload_live", upload_live_markdown), ("outbox", outbox_markdown), ("loudness", loudness_markdown),
                 ("cleanup", cleanup_markdown), ("transcripts", transcripts_markdown),
                 ("desktop", desktop_markdown),
                 ("convert", convert_markdown), ("library_size", library_size_markdown))
    for key, render in renderers:
        if key not in report:
            continue
        text += "\n"
        if key in report["carried_over"]:
            quick = " (--quick)" if (report[key].get("measured") or {}).get("quick") else ""
            text += f"Not measured in this run: the results of {report['carried_over'][key]}{quick}.\n\n"
        text += render(report[key])
    return text
