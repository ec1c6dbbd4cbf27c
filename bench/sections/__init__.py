"""One module per bench section (and the inputs and parts they share), above bench/common and below the runner
bench/run.py; each section module has the section's function and its latest.md table."""
