# Comparison: grouped bars per metric, each scenario's figure relative to the
# first scenario's (= 1).
# Data (written by trainsim plot compare from trainsim compare --format csv,
# a row per scenario): a header "metric" then the scenario names; rows:
# metric relative_1 relative_2 ..., a metric per row, a bar group each.
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
if (!exists('ylabel')) ylabel = 'relative to the first scenario'
set ylabel ylabel noenhanced
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set xtics rotate by -30 noenhanced
set key outside right top noenhanced
plot for [i=2:nseries+1] datafile using i:xtic(1) title columnheader(i), \
     1 with lines dt 2 lc rgb '#444444' notitle
