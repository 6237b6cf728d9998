# Queue length and GPU utilisation over time of one `trainsim queue` run.
# Data: the CSV of `trainsim queue ... --timeline FILE` (t_s, busy_gpus,
# queued_jobs, down_gpus, utilisation; one row per change, a step function).
# Run: gnuplot -e "datafile='tl.csv'; outfile='queue.png'" plots/queue.gp
# SPDX-License-Identifier: MIT
if (!exists('datafile')) datafile = 'tl.csv'
if (!exists('outfile')) outfile = 'queue.png'
set terminal pngcairo size 1000,500
set output outfile
set datafile separator ','
set key autotitle columnhead top left
set xlabel 'time (h)'
set ylabel 'jobs waiting'
set y2label 'GPU utilisation (%)'
set yrange [0:*]
set y2range [0:100]
set ytics nomirror
set y2tics
plot datafile using ($1/3600):3 with steps lw 2 title 'jobs waiting', \
     '' using ($1/3600):($5*100) axes x1y2 with steps lw 1 title 'utilisation'
