# Scaling curve: throughput against GPUs with the ideal line (linear from the
# first point), and scaling efficiency on the right axis.
# Data (written by trainsim plot scaling): gpus tokens_per_s ideal efficiency
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
set title 'Scaling: '.title_in noenhanced
set xlabel 'GPUs'
set ylabel 'throughput (tokens/s)'
set y2label 'scaling efficiency (%)'
set logscale x 2
set logscale y 10
set format y '%.0s%c'
set y2range [0:110]
set y2tics 10
set ytics nomirror
set key bottom right
plot datafile using 1:3 with lines dt 2 lw 2 lc rgb '#888888' title 'ideal (linear)', \
     datafile using 1:2 with linespoints pt 7 lw 2 lc rgb '#1f77b4' title 'simulated', \
     datafile using 1:($4*100) axes x1y2 with linespoints pt 5 lw 2 lc rgb '#d62728' title 'efficiency (right axis)'
