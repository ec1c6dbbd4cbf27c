"""The budgets of docs/performance.md that the sections check their figures against (a missed budget is
reported, it does not fail the bench)."""

# Library size, waveform (the memory budget also bounds the hostile input section)
BUDGET_STRIPPED_SO_BYTES = 16 * 1024 * 1024  # docs/performance.md
BUDGET_VS_FLOOR = 1.2                         # docs/performance.md: ≤ 1.2x the C floor
BUDGET_VS_FFPROBE = 0.66                      # docs/performance.md: ≤ 0.66x the ffprobe line
BUDGET_OVER_BASELINE_MIB = 5.0                # docs/performance.md: peak RSS ≤ 5 MiB above the process baseline
# Recorder (docs/recorder.md, docs/performance.md)
BUDGET_RECORDER_CPU = 1.15                    # docs/performance.md: ≤ 1.15x opusenc on the same PCM with the same settings
                                              # (it also decodes its own pages for the exact waveform)
BUDGET_BEGIN_MS = 50.0                        # docs/performance.md: begin returns with capture running ≤ 50 ms
BUDGET_FINISH_MS = 100.0                      # docs/performance.md: stop to finished ≤ 100 ms for a 10 min take
# Player (docs/player.md, docs/performance.md)
BUDGET_PLAYER_CPU = 1.2                       # docs/performance.md: ≤ 1.2x opusdec | aplay at 1x
BUDGET_PLAY_FIRST_FRAME_MS = 50.0             # docs/performance.md: play → first frame written ≤ 50 ms
# Remote (docs/performance.md "play → first frame over HTTP", "waveform without the network")
BUDGET_REMOTE_COLD_MS = 200.0                 # docs/performance.md: cold cache ≤ 200 ms, libcurl's loading included
BUDGET_REMOTE_WARM_VS_LOCAL = 1.25            # "warm cache: the local file's speed", read here as ≤ 1.25x the local
                                              # file's figure in the same turn (first frames of ~1 ms vary by a
                                              # quarter from turn to turn on this machine)
# Upload (bench/sections/upload.py)
BUDGET_VS_CURL = 0.9                          # throughput ≥ 0.9x curl -F's, i.e. curl ms / ours ms ≥ 0.9
# Convert (docs/player.md "Converting a note", bench/sections/convert.py)
BUDGET_CONVERT_VS_FFMPEG = 1.5                # docs/performance.md: wall time ≤ 1.5x `ffmpeg -filter:a atempo=2 -c:a
                                              # libopus -b:a 32k` on the same note: the same decode, stretch and
                                              # encode work (libopus at complexity 10 on both sides); the stretch is
                                              # libsonic's against atempo's, and ours also syncs its output before
                                              # the rename
# Batch waveform (bench/sections/batch.py: 1000 five-second notes, `voicenote waveform --from LIST -j CORES`)
BUDGET_BATCH_VS_PROCESS_PER_FILE = 5.0        # docs/performance.md: ≥ 5x the files/s of one `voicenote waveform FILE`
                                              # process per file, one after the other, on 2 cores
BUDGET_BATCH_MEMORY_PER_WORKER_MIB = 5        # docs/performance.md: peak RSS ≤ 5 MiB per worker over the baseline
                                              # whatever the batch's length, read as the 1000-note batch against a
                                              # 2-note batch with the same -j
# Long file waveform (bench/sections/long.py: the 600 s note, `voicenote waveform F -j CORES`, split over threads)
BUDGET_LONG_VS_FLOOR = 0.65                   # docs/performance.md: the 600 s Opus note on every core ≤ 0.65x the C
                                              # floor's wall time (one process, one pass) on 2 cores
# JSON (bench/sections/json_parsing.py: each shape at n and 4n members)
BUDGET_JSON_GROWTH_VS_FLOOR = 1.5             # docs/performance.md: "JSON parses in linear time whatever its shape",
                                              # read as our time's growth from n to 4n ≤ 1.5x jansson's own on the
                                              # same texts (linear: both a little over 4x; quadratic: 16x)

# Flow (bench/sections/flow.py: every vn_flow_* call with a 10-minute AAC take in preview)
BUDGET_FLOW_CALL_MS = 5.0                     # issue #35: no vn_flow_* call blocks its caller more than 5 ms
BUDGET_UPLOAD_LIVE_RELEASE_S = 0.5            # issue #38: release → the whole file on a streaming destination at 256 kbit/s

# Loudness (bench/sections/loudness.py, docs/loudness.md)
LEVELLING_SPREAD_LU = 1.0                     # issue #39: every note played levelled within ±1 LU of the target
BUDGET_LOUDNESS_IN_WAVEFORM = 1.10            # issue #39: waveform + loudness ≤ 1.10x the waveform alone (600 s)
BUDGET_LEVELLED_PLAYBACK = 1.05               # issue #39: levelled playback CPU ≤ 1.05x plain playback
BUDGET_CLEANUP_PESQ_GAIN = 0.5                # issue #39: voice cleanup improves PESQ-wb by ≥ 0.5 on average
BUDGET_CLEANUP_STOI_DROP = 0.005              # issue #39: STOI does not drop (0.005: the third decimal's rounding)
BUDGET_CLEANUP_NOISE_DB = 15.0                # issue #39: noise-only stretches ≥ 15 dB lower
BUDGET_CLEANUP_CPU_SHARE = 0.10               # issue #39: cleanup ≤ 10 % of one core at 48 kHz
BUDGET_CLEANUP_QUIET_DB = 3.0                 # issue #39: a −45 dBFS voice comes out within ±3 dB of a normal one
BUDGET_TRANSCRIPT_WER_POINTS = 1.0            # issue #40: our word error rate within 1 point of PocketSphinx's own tool
BUDGET_TRANSCRIPT_TIMES_S = 0.1               # issue #40: word times within 100 ms of the reference tool's
BUDGET_TRANSCRIPT_FIRST_WORDS_S = 2.0         # issue #40: first words of a 60 s note ≤ 2 s after the request
BUDGET_TRANSCRIPT_CACHED_MS = 5.0             # issue #40: a cached transcript ≤ 5 ms

# The desktop (bench/sections/desktop.py, docs/desktop.md)
BUDGET_MEDIA_KEY_PAUSE_MS = 50.0              # issue #41: media-key Pause (playerctl) → the player paused
BUDGET_OTHERS_PAUSED_MS = 100.0               # issue #41: other players paused ≤ 100 ms after the take begins
BUDGET_RESUME_EXACT_TRIALS = 100              # issue #41: 100 of 100 trials resume exactly the players that played
BUDGET_SOURCE_LOST_GAP_MS = 200.0             # issue #41: a capture source lost mid-take → capture goes on ≤ 200 ms later
