"""Where the bench is: HERE (bench/) and REPO (the repository)."""
import pathlib

HERE = pathlib.Path(__file__).resolve().parent.parent  # bench/ (this file is bench/common/paths.py)
REPO = HERE.parent
