# Cost against time to train, every configuration as a point, the Pareto
# frontier (cheapest for its time or faster) as a line.
# Data (written by trainsim plot frontier): hours cost_usd on_frontier "label"
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
set xlabel 'time to train (hours)'
set ylabel 'cost (US$)'
set logscale x 10
set key top right
plot datafile using 1:2 with points pt 7 ps 1.2 lc rgb '#1f77b4' title 'configurations', \
     datafile using ($3 == 1 ? $1 : 1/0):2 with linespoints pt 6 ps 1.8 lw 2 lc rgb '#d62728' title 'frontier', \
     datafile using 1:2:4 with labels offset 0.8,0.6 left font ',9' noenhanced notitle
