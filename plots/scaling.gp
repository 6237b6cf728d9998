# Scaling: throughput against the x column (nodes or GPUs), one series per
# value of the sweep's other axes, each with its ideal line (linear in GPUs
# from the series' first point, dashed); with one series, the scaling
# efficiency on the right axis. Each series' 80 % band of throughput
# (tokens_per_s_p10 to _p90 of the results) is a shaded area.
# Data (written by trainsim plot scaling): a block per series, opening with
# its title, then rows: x tokens_per_s ideal efficiency gpus p10 p90
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
set xlabel xlabel noenhanced
set ylabel 'throughput (tokens/s)'
if (logx) {
	set logscale x 2
	set logscale y 10
}
set format y (logx ? '%.0s%c' : '%.1s%c')
set ytics nomirror
set key top left noenhanced
if (nseries == 1) {
	set key bottom right
	set y2label 'scaling efficiency (%)'
	set y2range [0:110]
	set y2tics 10
	plot datafile index 0 using 1:6:7 with filledcurves fs transparent solid 0.2 noborder lc rgb '#1f77b4' title '80 % band', \
	     datafile index 0 using 1:3 with lines dt 2 lw 2 lc rgb '#888888' title 'ideal (linear in GPUs)', \
	     datafile index 0 using 1:2 with linespoints pt 7 lw 2 lc rgb '#1f77b4' title columnheader(1), \
	     datafile index 0 using 1:($4*100) axes x1y2 with linespoints pt 5 lw 2 lc rgb '#d62728' title 'efficiency (right axis)'
} else {
	plot for [i=0:nseries-1] datafile index i using 1:6:7 with filledcurves fs transparent solid 0.15 noborder lc i+1 notitle, \
	     for [i=0:nseries-1] datafile index i using 1:2 with linespoints pt 7 lw 2 lc i+1 title columnheader(1), \
	     for [i=0:nseries-1] datafile index i using 1:3 with lines dt 2 lw 1 lc i+1 notitle, \
	     NaN with lines dt 2 lw 1 lc rgb '#888888' title 'ideal, per series (dashed)', \
	     NaN with filledcurves fs transparent solid 0.15 noborder lc rgb '#888888' title '80 % band, per series (shaded)'
}
