"""The machine and tool versions a report was measured with (latest.json's "machine")."""
import os
import platform
import subprocess

from common.paths import REPO


def machine() -> dict:
    def first_line(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return None

    model = None
    try:
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                      if line.startswith("model name")), None)
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(), "cpu": model, "kernel": platform.release(), "python": platform.python_version(),
        "load_average_at_start": os.getloadavg(),
        "libopus": first_line(["pkg-config", "--modversion", "opus"]),
        "libogg": first_line(["pkg-config", "--modversion", "ogg"]),
        "ffprobe": first_line(["ffprobe", "-version"]), "cc": first_line([os.environ.get("CC", "cc"), "--version"]),
        "opusenc": first_line(["opusenc", "--version"]), "libopusenc": first_line(["pkg-config", "--modversion",
                                                                                    "libopusenc"]),
        "git": first_line(["git", "-C", str(REPO), "describe", "--always", "--dirty", "--abbrev=12"]),
        "pulseaudio": first_line(["pulseaudio", "--version"]), "alsa-lib": first_line(["pkg-config", "--modversion",
                                                                                        "alsa"]),
        "opusdec": first_line(["opusdec", "--version"]), "aplay": first_line(["aplay", "--version"]),
        "sox": first_line(["sox", "--version"]), "libsonic": first_line(["dpkg-query", "-W", "-f", "${Version}",
                                                                          "libsonic0"]),
    }
