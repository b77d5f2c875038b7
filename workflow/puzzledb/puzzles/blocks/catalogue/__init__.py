"""A catalogue of sliding-block puzzles: every board of a box around its goal pieces, its
clusters searched by jobs (docs/blocks.md, "The catalogue").  The definition (definition.py:
the box, the classes of pieces, the boards' keys), the puzzle (puzzle.py) and how many
boards the box holds (box.py); how the jobs share the work (split.py); a job's search
(job.py): by blocks of candidate boards (job_blocks.py: candidate_walk_blocks.py over
cluster_search_blocks.py) or, for bars, by lanes (job_lanes.py: lanes.py's tables,
candidate_walk_lanes.py over cluster_search_lanes.py); the rows of catalogue.csv
(table_rows.py).  A job's part written, the parts' merge and the queries are
report/catalogue.py's."""
