/* The timeline of a simulated run as a trace people read: a track per GPU
 * stream, named with the node, GPU, rank, its TP/PP/DP coordinates and
 * pipeline stage; communication on tracks of its own per collective kind;
 * flows from each pipeline send to its receive; slice arguments (micro-
 * batch, layers, FLOPs, bytes); counters of memory in use per GPU and of
 * the utilisation of chosen links. Everything is written to the trace as
 * the run goes (sim/trace/trace.h streams it); nothing here runs unless a
 * trace is asked for.
 * SPDX-License-Identifier: MIT */
#ifndef TS_RUN_TIMELINE_H
#define TS_RUN_TIMELINE_H

#include <stdint.h>

#include "engine/fluid.h"
#include "net/net.h"
#include "par/graph.h"
#include "par/layout.h"
#include "par/pipe.h"
#include "trace/trace.h"

struct timeline;

/* Most links whose utilisation a trace shows. */
#define TIMELINE_MAX_LINKS 8u

/* What a timeline watches (all borrowed; they outlive the timeline). The
 * graph must have kept details (graph_keep_detail before pipe_build). */
struct timeline_src {
	struct ts_trace *tr;
	struct ts_graph *g;
	struct ts_fluid *f;
	const struct ts_net *net;
	const struct layout *lay;
	const struct pipe_built *pb;
	const uint32_t *links; /* fluid resources of links to show, busiest first */
	uint32_t nlinks;       /* at most TIMELINE_MAX_LINKS */
};

/* Start recording: set the graph's and the fluid model's observers, write
 * the processes of the links and the memory each GPU holds at the start.
 * Returns 0 or TS_ENOMEM (*out NULL). */
int timeline_begin(const struct timeline_src *src, struct timeline **out);

/* Stop recording (clear the observers, write the last counter values) and
 * free the timeline (NULL is fine). Returns the first error of recording:
 * 0, TS_ENOMEM, or the trace's TS_EIO. */
int timeline_end(struct timeline *x);

/* The `n` link resources of net that carried the most per unit of capacity
 * in the finished run of f (fluid_resource_carried / capacity), busiest
 * first, into out (room for n); returns how many (links that carried
 * nothing are left out). */
uint32_t timeline_busiest_links(struct ts_fluid *f, const struct ts_net *net, uint32_t *out,
				uint32_t n);

#endif
