"""The bench's shared helpers, the bottom layer: paths, errors, running and timing children, memory, figures and
their text, the corpus, the library snapshot, the maps probe, Ogg reading, the PulseAudio and nginx servers, the
machine's description and latest.json. Nothing here imports a section or the runner."""
