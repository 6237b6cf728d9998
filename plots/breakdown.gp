# Stacked time breakdown of one iteration per result row (critical path).
# Data (written by trainsim plot breakdown): "label" compute recompute
# exposed_comm bubble data_stall optimizer other (seconds)
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
set yrange [0:*]
set ylabel 'time per iteration (s)'
set xlabel xlabel noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics rotate by -30 noenhanced
set key outside right top
plot datafile using 2:xtic(1) title 'compute', '' using 3 title 'recompute', \
     '' using 4 title 'exposed communication', '' using 5 title 'pipeline bubble', \
     '' using 6 title 'data stall', '' using 7 title 'optimizer', '' using 8 title 'other'
