# Queue: jobs waiting (left axis) and the GPUs busy, as a percentage of the
# cluster's (right axis), against time, each a step function (a state holds
# until the next row); the GPUs down for repair, when any were, as a
# percentage too. The key gives the time-means over the timeline.
# Data (written by trainsim plot queue from trainsim queue --timeline):
# rows: t_s queued_jobs busy_pct down_gpus. Settings: tunit (s per unit of
# the time axis), mean_util (%), mean_queued, max_queued, gpus, has_down.
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
if (!exists('tunit')) tunit = 3600.0
if (!exists('mean_util')) mean_util = 0.0
if (!exists('mean_queued')) mean_queued = 0.0
if (!exists('gpus')) gpus = 0
if (!exists('has_down')) has_down = 0
set xlabel xlabel noenhanced
set ylabel 'jobs waiting'
set y2label 'GPUs (% of the cluster)'
if (!exists('max_queued')) max_queued = 1
if (max_queued > 0) { set yrange [0:*] } else { set yrange [0:1] }
set offsets 0, 0, graph 0.08, 0
set y2range [0:105]
set ytics nomirror
set y2tics
set key below horizontal noenhanced
plot datafile using ($1/tunit):2 with steps lw 2 lc rgb '#1f77b4' \
	title sprintf('jobs waiting (mean %.2f)', mean_queued), \
     '' using ($1/tunit):3 axes x1y2 with steps lw 1 lc rgb '#2ca02c' \
	title sprintf('GPUs busy (mean %.1f %%)', mean_util), \
     '' using ($1/tunit):(has_down ? 100.0*$4/gpus : NaN) axes x1y2 with steps lw 1 \
	lc rgb '#d62728' title (has_down ? 'GPUs down' : '')
