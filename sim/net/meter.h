/* Timing one collective alone on an idle cluster, as nccl-tests does: the
 * one place that builds an engine stack (event queue, fluid engine, network,
 * collective launcher) for a lone collective, used by `trainsim collective`
 * and by the nccl-tests calibration.
 * SPDX-License-Identifier: MIT */
#ifndef TS_NET_METER_H
#define TS_NET_METER_H

#include <stdint.h>

#include "base/err.h"
#include "hw/cluster.h"
#include "net/coll.h"
#include "net/net.h"

struct coll_meter;

/* An idle cluster to time collectives on, one after another, over its first
 * `nranks` GPUs (ranks 0..nranks-1 in order) of cluster c (borrowed, must
 * outlive the meter), in `mode`; class mode becomes full mode when the
 * ranks do not fill whole nodes (a group must look the same from every
 * node). Returns 0, TS_ERANGE (nranks 0 or above the cluster's GPUs) or
 * TS_ENOMEM, with err filled. */
int coll_meter_create(struct coll_meter **out, const struct hw_cluster *c, uint32_t nranks,
		      enum net_mode mode, struct ts_error *err);

/* The mode the meter runs in (after the downgrade above). */
enum net_mode coll_meter_mode(const struct coll_meter *m);

/* Run collective `op` of `bytes` (as nccl-tests counts them, see struct
 * coll_spec) alone, with algorithm and protocol `algo` and `proto` (0:
 * automatic): *time_s receives its duration in s, *plan (may be NULL) the
 * algorithm, protocol and channels chosen. Returns 0, the errors of
 * coll_start, or TS_ELIMIT when it would end past the simulated clock's
 * range (about 292 years); after an error the meter is not to be used
 * again. */
int coll_meter_run(struct coll_meter *m, enum coll_op op, double bytes, int algo, int proto,
		   struct coll_plan *plan, double *time_s, struct ts_error *err);

/* Free the meter (NULL is fine). */
void coll_meter_destroy(struct coll_meter *m);

#endif
