# Memory per GPU at its peak, by kind, stacked, with the GPU's usable
# capacity.
# Data (written by trainsim plot memory): "label" weights gradients optimizer
# activations logits buffers reserve capacity (GiB)
# SPDX-License-Identifier: MIT
load plotdir.'/common.gp'
set yrange [0:*]
set ylabel 'memory per GPU (GiB)'
set xlabel xlabel noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics rotate by -30 noenhanced
set key outside right top
plot datafile using 2:xtic(1) title 'weights', '' using 3 title 'gradients', \
     '' using 4 title 'optimizer state', '' using 5 title 'activations', \
     '' using 6 title 'logits', '' using 7 title 'buffers', '' using 8 title 'reserve', \
     '' using 0:9 with linespoints lw 2 pt 7 lc rgb 'black' title 'capacity'
