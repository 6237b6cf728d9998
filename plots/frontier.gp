# Cost against time to train, every configuration as a point, the Pareto
# frontier (cheapest for its time or faster) as a line.
# Data (written by trainsim plot frontier): hours cost_usd on_frontier "label"
# hours_p10 hours_p90 cost_p10 cost_p90 (each point's 80 % band, from
# trainsim advise --format csv; the point itself where the file has none)
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
set xlabel 'time to train (hours)'
set ylabel 'cost (US$)'
set logscale x 10
set key top right
plot datafile using 1:2:5:6:7:8 with xyerrorbars pt 7 ps 1.2 lc rgb '#1f77b4' title 'configurations (80 % band)', \
     datafile using ($3 == 1 ? $1 : 1/0):2 with linespoints pt 6 ps 1.8 lw 2 lc rgb '#d62728' title 'frontier', \
     datafile using 1:2:4 with labels offset 0.8,0.6 left font ',9' noenhanced notitle
