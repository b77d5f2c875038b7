"""Published per-depth tables of sliding puzzles (OEIS), transcribed for the tests to compare
computed results with.  Nothing here feeds the code under test.

counts[d] is the number of positions exactly d moves (slide one tile into the blank) from the
goal.  Only the goal cell of the blank matters (renaming tiles is an isomorphism), and a
W x H table is also the H x W one (transpose).  The transcription was checked against an
independent plain-Python breadth-first search of each puzzle.
"""

# OEIS A090034: the 3 x 2 puzzle, blank's goal in a corner (example goal "123 45-"); 360
# positions, radius 21.  Data credited to Karlemo & Ostergard (2000).
SLIDING_3X2_CORNER = [1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18,
                      12, 6, 1]

# OEIS A090035: the 4 x 2 puzzle, blank's goal in a corner (example goal "1234 567-");
# 20,160 positions, radius 36.
SLIDING_4X2_CORNER = [1, 2, 3, 6, 10, 14, 19, 28, 42, 61, 85, 119, 161, 215, 293, 396, 506,
                      632, 788, 985, 1194, 1414, 1664, 1884, 1999, 1958, 1770, 1463, 1076,
                      667, 361, 190, 88, 39, 19, 7, 1]

# OEIS A090036: the 5 x 2 puzzle, blank's goal in a corner (example goal "12345 6789-");
# 1,814,400 positions, radius 55.
SLIDING_5X2_CORNER = [1, 2, 3, 6, 11, 19, 30, 44, 68, 112, 176, 271, 411, 602, 851, 1232,
                      1783, 2530, 3567, 4996, 6838, 9279, 12463, 16597, 21848, 28227, 35682,
                      44464, 54597, 65966, 78433, 91725, 104896, 116966, 126335, 131998,
                      133107, 128720, 119332, 106335, 91545, 75742, 60119, 45840, 33422,
                      23223, 15140, 9094, 5073, 2605, 1224, 528, 225, 75, 20, 2]

# OEIS A089473: the 8-puzzle, blank's goal in a corner (example goal "123 456 78-"); radius
# 31 with 2 positions.  First published by A. Reinefeld, IJCAI 1993, Table 1 (which misprints
# a(12) = 748 as 749).
EIGHT_CORNER = [1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485,
                5638, 9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274,
                3910, 760, 221, 2]

# OEIS A089474: the 8-puzzle, blank's goal in the centre (example goal "123 4-5 678"); radius
# 30 with 148 positions.
EIGHT_CENTRE = [1, 4, 8, 8, 16, 32, 60, 72, 136, 200, 376, 512, 964, 1296, 2368, 3084, 5482,
                6736, 11132, 12208, 18612, 18444, 24968, 19632, 22289, 13600, 11842, 4340,
                2398, 472, 148]

# OEIS A089483: the 8-puzzle, blank's goal at the middle of a side (example goal
# "1-2 345 678"); radius 31 with 2 positions.
EIGHT_SIDE = [1, 3, 5, 10, 14, 28, 42, 80, 108, 202, 278, 524, 726, 1348, 1804, 3283, 4193,
              7322, 8596, 13930, 14713, 21721, 19827, 25132, 18197, 18978, 9929, 7359, 2081,
              878, 126, 2]

# OEIS A089484: the 15-puzzle, blank's goal in a corner (example goal "1234 5678 9abc def-"),
# positions at distance 0..30 of 0..80 (16!/2 = 10,461,394,944,000 in all, radius 80 with 17
# positions).  Computed by R. E. Korf and P. Schultze, "Large-scale parallel breadth-first
# search", AAAI 2005; the full table is the entry's b-file.
FIFTEEN_CORNER_HEAD = [
    1, 2, 4, 10, 24, 54, 107, 212, 446, 946, 1948, 3938, 7808, 15544, 30821, 60842,
    119000, 231844, 447342, 859744, 1637383, 3098270, 5802411, 10783780, 19826318,
    36142146, 65135623, 116238056, 204900019, 357071928, 613926161,
]
