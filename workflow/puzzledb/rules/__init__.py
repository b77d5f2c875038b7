"""The Snakemake adapter: what the rules ask of the library, one module per rule file
(common.py for rules/common.smk and what the rule files share, bfs.py, frontier.py,
analysis.py with the default target, pdbs.py, catalogue.py), and how a rule's script runs as a job
(job.py; frontier_job.py gives a frontier rule's job its search).  What the rule files
import plans only and loads no compiled code, so parsing the Snakefile stays quick."""

from puzzledb.rules.common import PUZZLE_NAME
from puzzledb.rules.job import rule_job

__all__ = ["PUZZLE_NAME", "rule_job"]
