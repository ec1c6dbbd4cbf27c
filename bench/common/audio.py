"""Audio facts more than one section uses: the corpus's and the devices' PCM rate, the waveform's value count."""

WAVEFORM_SAMPLES = 100
PCM_RATE = 48000
