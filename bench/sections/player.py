"""Section `player` (docs/player.md): both sides play to the same unpaced sink, ALSA's `file` plugin over `null`
(`pcm.vn_bench`, the only definition of an ALSA_CONFIG_PATH file every run gets; ours is handed the same text).
Its two parts, CPU (sections/player_cpu.py) and play → first frame (sections/player_latency.py), and their
tables."""
import pathlib

from common.budgets import BUDGET_PLAYER_CPU
from common.text import library_note, ratio_text, secs, spread
from sections.player_cpu import PLAYER_LABELS, player_cpu_section
from sections.player_inputs import build_player_inputs
from sections.player_latency import player_latency_section


def player_section(build: pathlib.Path, work: pathlib.Path, runs: int, counts: dict, inputs: dict = None) -> dict:
    inputs = inputs or build_player_inputs(build, work)
    return {"cpu": player_cpu_section(inputs, runs), "latency": player_latency_section(inputs, counts)}


def player_markdown(section: dict) -> str:
    cpu, latency = section["cpu"], section["latency"]
    check = cpu["check"]
    lines = [
        f"Player CPU, {cpu['seconds_of_audio']} s of Ogg Opus speech (speech_{cpu['seconds_of_audio']}s.ogg, "
        "bench/make_corpus.sh) played to its end. Both sides play to the same unpaced sink, ALSA's `file` plugin "
        f"over `null` writing to /dev/null (`{cpu['device']}`), the only definition in the ALSA_CONFIG_PATH file "
        "given to every run (ours gets the same text through vn_player_options_set_device). Ours: "
        "bench/play_file.c, load with autoplay, wait for FINISHED (player defaults: progress every 0.1 s). "
        "Reference: `opusdec --quiet F - | aplay -D vn_bench -t raw -f S16_LE -r 48000 -c 1` through `sh -c` "
        "(CPU of the shell and both children, os.wait4); at 2x `opusdec | sox tempo -s 2 | aplay` (a time "
        "stretch with the pitch kept, as libsonic). Whole processes in turns after a 5 s warm-up of each; CPU is "
        "user + sys of all threads; times medians (min–max), ratios medians (min–max) of per-turn ratios. Budget "
        f"(docs/performance.md): ≤ {BUDGET_PLAYER_CPU}x opusdec | aplay at 1x; 2x has none.",
        "",
        "| run | n | CPU s | user s | sys s | wall s | peak RSS MiB | ours / reference, CPU | ours / reference, user "
        "| ours / reference, sys | ours / reference, wall | budget |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    pairs = {"ref_1x": "ours_1x", "ref_2x": "ours_2x"}
    for key, entry in cpu["series"].items():
        peak = entry["peak_kib"]
        peak_text = "?" if peak["value"] is None else f"{peak['value'] / 1024:.1f}" + (
            "" if peak["from"].startswith("os.wait4") else "†")
        if key in pairs:
            ours = pairs[key]
            vs = [ratio_text(cpu["ratios"][f"{ours}/{key} {m}"]) for m in ("cpu", "user", "sys", "wall")]
            if key == "ref_1x":
                v = cpu["verdict"]
                verdict = f"{'pass' if v['pass'] else '**miss**'} (≤ {v['limit']}x)"
            else:
                verdict = "— (none)"
        else:
            vs = ["—"] * 4
            verdict = "—"
        lines.append(f"| {PLAYER_LABELS[key].replace('|', chr(92) + '|')} | {cpu['runs']} | {spread(entry['cpu_s'], secs)} "
                     f"| {secs(entry['user_s']['median'])} | {secs(entry['sys_s']['median'])} "
                     f"| {spread(entry['wall_s'], secs)} | {peak_text} | {' | '.join(vs)} | {verdict} |")
    frames = check["frames"]
    lines += [
        "",
        f"Ours at 2x against ours at 1x: CPU {ratio_text(cpu['ratios']['ours_2x/ours_1x cpu'])}. Peak RSS: ours "
        "from os.wait4, or † by GNU time on a 5 s run when os.wait4 cannot see below the harness's own peak (a child "
        "inherits it); a pipeline's is its largest process.",
        "",
        f"Frames played (one untimed run into real files): the file holds {check['file_frames']:,} frames at 48 kHz; "
        f"ours wrote {frames['ours_1x']:,} at 1x ({'equal' if check['ours_1x_equal_file'] else 'DIFFERENT'}), "
        f"opusdec | aplay {frames['ref_1x']:,} (the file's, then {check['ref_1x_padding_frames']:,} frames aplay "
        f"adds at the end, {'silence' if check['ref_1x_padding_is_silence'] else 'NOT silence'}); our samples are "
        f"within {check['max_abs_sample_difference_1x']} LSB of opusdec's (both dither their float decode to 16 "
        f"bits). At 2x: ours {frames['ours_2x']:,}, sox tempo {frames['ref_2x']:,}.",
    ]
    f = latency["figures"]
    c = latency["counts"]
    budget = latency["budget_ms"]

    def row(name, entry, reference, ratio):
        verdict = "pass" if entry["pass"] else "**miss**"
        if not entry["max_within"]:
            verdict += f" (max {entry['max']:.1f} ms over)"
        return (f"| {name} | {entry['n']} | {entry['median']:.2f} | {entry['min']:.2f}–{entry['max']:.2f} "
                f"| {reference['median']:.2f} | {ratio_text(ratio)} | ≤ {budget:g} ms | {verdict} |")
    lines += [
        "",
        "Play → first frame (bench/play_latency.c, CLOCK_MONOTONIC from just before the call): a new player on the "
        f"same kind of sink, the file plugin over null writing to a regular file, vn_player_load of the 5 s note "
        f"with autoplay; {c['turns']} processes of {c['takes_per_process']} takes each (the first take of a process "
        "is \"first in process\": ALSA's configuration and plugins), alternating with alsa-lib alone opening the same "
        "PCM, setting the library's parameters (S16_LE mono 48 kHz, 20 ms periods, 8-period buffer) and writing "
        "20 ms periods. \"First frame accepted\": the first snd_pcm_writei() that returned frames (play_latency "
        "defines snd_pcm_writei and forwards to alsa-lib's, so the library's calls are seen from outside it). "
        "\"File grew\": the output file first non-empty, seen by a thread stat()ing it every 0.2 ms; the file "
        f"plugin writes only once more than its buffer is queued ({latency.get('buffer_frames')} frames), so this "
        f"comes after ~{f['frames_at_growth']['median']:,.0f} frames were accepted (ours, median). Ratios: "
        "medians (min–max) of per-process ratios.",
        "",
        "| figure | n | ours median ms | min–max ms | alsa-lib alone, median ms | ours / alsa-lib | budget | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
        row("play → first frame accepted, first in process", f["first_write_cold"], f["floor_first_write_cold"],
            f["ratio_first_write_cold"]),
        row("play → first frame accepted, warm process", f["first_write_warm"], f["floor_first_write_warm"],
            f["ratio_first_write_warm"]),
        row("play → output file grew, first in process", f["file_grew_cold"], f["floor_file_grew_cold"],
            f["ratio_file_grew_cold"]),
        row("play → output file grew, warm process", f["file_grew_warm"], f["floor_file_grew_warm"],
            f["ratio_file_grew_warm"]),
        "",
        f"vn_player_load itself returns in {f['load_call']['median']:.3f} ms (median; the player's thread opens the "
        f"file and the device); alsa-lib alone is configured and prepared {f['floor_configured_warm']['median']:.2f} ms "
        "after its open call (warm).",
        "",
        library_note(cpu),
    ]
    return "\n".join(lines) + "\n"
