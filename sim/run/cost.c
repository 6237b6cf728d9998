/* Whole-run extrapolation: checkpoints, energy by state, cost.
 *
 * The iteration's critical-path breakdown says how long the GPUs compute,
 * wait on exposed communication, or idle; each state draws the node power
 * of cost_node_power, so a job that hides its communication spends its
 * energy computing and one that waits on a slow network spends it idling.
 * Checkpoint writes stop training (synchronous save) with GPUs idle.
 * SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "hw/cluster.h"

#include "run/cost.h"

void cost_node_power(const struct ts_scenario *sc, const struct hw_gpu_type *g,
		     struct cost_power *out)
{
	const struct ts_power *p = &sc->power;
	double G = (double)sc->gpus_per_node, tdp = g->tdp_w;
	double rated = p->node_max_w > 0.0 ? p->node_max_w : hw_cluster_node_power_w(sc->cluster);
	double Gf = (double)hw_cluster_power_gpus(sc->cluster), host;
	if (!(Gf >= G))
		Gf = G;
	if (rated > 0.0 && Gf > 0.0) /* a share of the rated node's host */
		host = fmax(0.0, rated - Gf * tdp) * G / Gf;
	else if (cost_workstation_gpu(g))
		host = COST_HOST_W_WORKSTATION * G / (Gf > 0.0 ? Gf : 1.0);
	else
		host = G * COST_HOST_W_PER_GPU;
	/* a power limit caps each state's draw; the host share above stays the
	 * rated node's, which the limit does not change */
	double lim = p->gpu_limit_w > 0.0 ? fmin(p->gpu_limit_w, tdp) : tdp;
	out->host_w = host;
	out->gpu_busy_w = G * lim;
	out->gpu_comm_w = G * fmin(lim, tdp * p->gpu_comm_frac);
	out->gpu_idle_w = G * fmin(lim, tdp * p->gpu_idle_frac);
	out->busy_w = host + out->gpu_busy_w;
	out->comm_w = host + out->gpu_comm_w;
	out->idle_w = host + out->gpu_idle_w;
	double nics = (double)sc->nodes * (double)sc->nics_per_node;
	out->net_w = nics * p->nic_w + (sc->nodes > 1 ? nics * p->switch_port_w : 0.0);
}

bool cost_workstation_gpu(const struct hw_gpu_type *g)
{
	return !strncmp(g->name, "RTX-", 4);
}

void cost_ckpt_write(const struct data_storage *st, double ckpt_bytes, uint32_t nodes,
		     double nic_Bps, struct cost_ckpt *out)
{
	double n = nodes > 0 ? (double)nodes : 1.0, w = COST_CKPT_WRITE_FRACTION * st->read_Bps;
	memset(out, 0, sizeof *out);
	snprintf(out->storage, sizeof out->storage, "%s", st->name);
	if (st->kind == DATA_STORAGE_SHARED) {
		out->node_Bps = w / n;
		out->limit = COST_CKPT_AGGREGATE;
		if (st->client_Bps > 0.0 &&
		    COST_CKPT_WRITE_FRACTION * st->client_Bps < out->node_Bps) {
			out->node_Bps = COST_CKPT_WRITE_FRACTION * st->client_Bps;
			out->limit = COST_CKPT_CLIENT;
		}
		if (nic_Bps > 0.0 && nic_Bps < out->node_Bps) {
			out->node_Bps = nic_Bps;
			out->limit = COST_CKPT_NICS;
		}
	} else {
		out->node_Bps = w * (double)(st->devices > 0 ? st->devices : 1);
		out->limit = COST_CKPT_DRIVES;
	}
	out->each_s = st->lat_s + ckpt_bytes / n / out->node_Bps;
}

/* Summed rate of node 0's links into the fabric (the node's NICs), bytes/s;
 * 0 when the cluster has no fabric. */
static double cost_nic_Bps(const struct hw_cluster *c)
{
	double s = 0.0;
	for (uint32_t l = 0; l < hw_cluster_nlinks(c); l++) {
		const struct hw_link *k = hw_cluster_link(c, l);
		const struct hw_device *a = hw_cluster_device(c, k->src);
		if (a->node == 0 && a->kind == HW_DEV_NIC &&
		    hw_cluster_device(c, k->dst)->node == HW_FABRIC)
			s += k->bw_Bps;
	}
	return s;
}

double cost_job_mtbf_s(const struct ts_scenario *sc)
{
	const struct ts_failures *f = &sc->failures;
	double rate = 0.0;
	if (f->gpu_mtbf_s > 0.0)
		rate += (double)sc->gpus / f->gpu_mtbf_s;
	if (f->node_mtbf_s > 0.0)
		rate += (double)sc->nodes / f->node_mtbf_s;
	return rate > 0.0 ? 1.0 / rate : (double)INFINITY;
}

double cost_young_interval_s(double write_s, double mtbf_s)
{
	if (!(write_s > 0.0) || !isfinite(mtbf_s) || !(mtbf_s > 0.0))
		return 0.0;
	return sqrt(2.0 * write_s * mtbf_s);
}

bool cost_ckpt_auto(const struct ts_scenario *sc)
{
	const struct ts_checkpoint *ck = &sc->checkpoint;
	if (ck->interval_auto)
		return true;
	return !ck->interval_none && !(ck->interval_steps > 0.0) && !(ck->interval_s > 0.0) &&
	       isfinite(cost_job_mtbf_s(sc));
}

bool cost_ckpt_on(const struct ts_scenario *sc)
{
	const struct ts_checkpoint *ck = &sc->checkpoint;
	return ck->interval_steps > 0.0 || ck->interval_s > 0.0 || cost_ckpt_auto(sc);
}

void cost_checkpoint(const struct ts_scenario *sc, const struct data_storage *st, double ckpt_bytes,
		     struct cost_ckpt *out)
{
	const struct ts_checkpoint *ck = &sc->checkpoint;
	memset(out, 0, sizeof *out);
	if (!cost_ckpt_on(sc))
		return;
	if (ck->write_Bps > 0.0) {
		out->node_Bps = ck->write_Bps / (double)(sc->nodes > 0 ? sc->nodes : 1);
		out->each_s = ckpt_bytes / ck->write_Bps;
		out->limit = COST_CKPT_OVERRIDE;
		return;
	}
	if (st)
		cost_ckpt_write(st, ckpt_bytes, sc->nodes, cost_nic_Bps(sc->cluster), out);
}

/* Work lost by k failures, each at a uniform point of its segment of
 * seg seconds: seg times the sum of k uniforms (its normal limit beyond
 * COST_FAIL_SUM_EXACT failures, mean k/2 and variance k/12). */
#define COST_FAIL_SUM_EXACT 1000u
static double lost_drawn(gsl_rng *rng, double k, double seg)
{
	double u = 0.0;
	if (k <= COST_FAIL_SUM_EXACT)
		for (unsigned int i = 0; i < (unsigned int)k; i++)
			u += gsl_rng_uniform(rng);
	else
		u = fmax(0.0, 0.5 * k + sqrt(k / 12.0) * gsl_ran_ugaussian(rng));
	return u * seg;
}

/* A Poisson count of mean mu >= 0: GSL's below COST_FAIL_POISSON_EXACT,
 * its normal limit (rounded, at least 0) above, where an unsigned int
 * count could overflow. */
#define COST_FAIL_POISSON_EXACT 1e6
static double poisson_drawn(gsl_rng *rng, double mu)
{
	if (mu <= COST_FAIL_POISSON_EXACT)
		return gsl_ran_poisson(rng, mu);
	return fmax(0.0, round(mu + sqrt(mu) * gsl_ran_ugaussian(rng)));
}

double cost_utilisation(const struct ts_cost *c)
{
	return c->utilisation > 0.0 && c->utilisation <= 1.0 ? c->utilisation : 1.0;
}

void cost_whole_run(const struct ts_scenario *sc, const struct hw_gpu_type *g, double ckpt_bytes,
		    double each_s, struct ts_result *r)
{
	cost_whole_run_drawn(sc, g, ckpt_bytes, each_s, NULL, r);
}

void cost_whole_run_drawn(const struct ts_scenario *sc, const struct hw_gpu_type *g,
			  double ckpt_bytes, double each_s, gsl_rng *rng, struct ts_result *r)
{
	const struct ts_checkpoint *ck = &sc->checkpoint;
	const struct ts_cost *c = &sc->cost;
	double T = r->iteration_time_s, steps = r->steps;
	r->checkpoint_bytes = ckpt_bytes;
	if (!(steps > 0.0) || !(T > 0.0) || !isfinite(T))
		return;
	double train_s = steps * T, n = 0.0, M = cost_job_mtbf_s(sc);
	double interval = ck->interval_steps > 0.0 ? ck->interval_steps * T
			  : ck->interval_s > 0.0   ? ck->interval_s
			  : cost_ckpt_auto(sc)	   ? cost_young_interval_s(each_s, M)
						   : 0.0;
	/* a checkpoint is taken between steps: at most one per step */
	if (interval > 0.0 && interval < T)
		interval = T;
	if (interval > 0.0)
		n = floor(train_s / interval);
	double each = n > 0.0 ? each_s : 0.0;
	r->checkpoints = n;
	r->checkpoint_s = n * each;
	r->checkpoint_interval_s = n > 0.0 ? interval : 0.0;
	double w0 = train_s + r->checkpoint_s;
	/* failures, first order: w0 / M of them, each losing half a segment
	 * (checkpoint interval + write; the run so far without checkpoints)
	 * and a restart */
	double seg = n > 0.0 ? interval + each : w0;
	r->job_mtbf_s = isfinite(M) ? M : 0.0;
	r->failures_expected = isfinite(M) ? w0 / M : 0.0;
	r->failure_lost_each_s = r->failures_expected > 0.0 ? 0.5 * seg : 0.0;
	r->failure_restart_each_s = r->failures_expected > 0.0 ? sc->failures.restart_s : 0.0;
	double lost_s = r->failures_expected * r->failure_lost_each_s;
	double restart_s = r->failures_expected * r->failure_restart_each_s;
	if (rng && r->failures_expected > 0.0) {
		/* one run: the failures of every node's Poisson process together,
		 * a Poisson count of the summed rate, each at a uniform point of
		 * its segment */
		double k = poisson_drawn(rng, r->failures_expected);
		r->failures_expected = k;
		lost_s = lost_drawn(rng, k, seg);
		restart_s = k * r->failure_restart_each_s;
	}
	r->failure_s = lost_s + restart_s;
	r->time_to_train_s = w0 + r->failure_s;
	double hours = r->time_to_train_s / 3600.0;
	r->gpu_hours = hours * (double)sc->gpus;
	r->node_hours = hours * (double)sc->nodes;
	r->warnings[0] = '\0';
	/* below a 1 % chance of any failure the warning would be noise */
	if (r->failures_expected > steps && n >= steps) {
		/* checkpointing every step does not keep up */
		snprintf(r->warnings, sizeof r->warnings,
			 "%.2g expected failures, more than one per step even with a checkpoint "
			 "every step: the job fails every %.3g s, too often to make progress as "
			 "modelled",
			 r->failures_expected, M);
	} else if (r->failures_expected > n && r->failures_expected >= COST_FAIL_WARN_MIN) {
		double l = r->failure_lost_each_s;
		snprintf(
		    r->warnings, sizeof r->warnings,
		    "%.2g expected failures exceed the %.0f checkpoints: each loses %.3g %s of "
		    "work (set checkpoint.interval)",
		    r->failures_expected, n,
		    l >= 3600.0 ? l / 3600.0
		    : l >= 60.0 ? l / 60.0
				: l,
		    l >= 3600.0 ? "h"
		    : l >= 60.0 ? "min"
				: "s");
	}

	struct cost_power pw;
	cost_node_power(sc, g, &pw);
	double nodes = (double)sc->nodes;
	double busy = r->compute_s + r->recompute_s + r->optimizer_s;
	double comm = r->exposed_comm_s;
	double idle = fmax(0.0, T - busy - comm);
	double gpu_iter_J =
	    nodes * (pw.gpu_busy_w * busy + pw.gpu_comm_w * comm + pw.gpu_idle_w * idle);
	double iter_J =
	    nodes * (pw.busy_w * busy + pw.comm_w * comm + pw.idle_w * idle) + pw.net_w * T;
	/* checkpoint writes and restarts idle; lost work is redone at the
	 * iteration's mean power */
	double stop_s = r->checkpoint_s + restart_s, iters = steps + lost_s / T;
	double gpu_J = iters * gpu_iter_J + nodes * pw.gpu_idle_w * stop_s;
	double it_J = iters * iter_J + (nodes * pw.idle_w + pw.net_w) * stop_s;
	double J = it_J * c->pue;
	r->gpu_energy_kwh = gpu_J / 3.6e6;
	r->it_energy_kwh = it_J / 3.6e6;
	r->facility_energy_kwh = J / 3.6e6;
	r->energy_kwh = r->facility_energy_kwh;
	r->avg_power_kw = J / r->time_to_train_s / 1000.0;

	double cloud_per_h = (double)sc->gpus * c->usd_per_gpu_hour + nodes * c->usd_per_node_hour;
	r->breakeven_months = 0.0;
	r->utilisation = 0.0;
	if (c->owned) {
		/* the hardware's yearly cost is spread over its busy hours: a
		 * cluster busy half the year costs twice as much per hour used */
		double u = cost_utilisation(c);
		double capital = nodes * (c->server_usd + c->network_usd) + c->storage_usd;
		double per_h =
		    (capital / (c->years * 8766.0) + c->upkeep_usd_per_year / 8766.0) / u;
		r->utilisation = u;
		r->cost_usd = per_h * hours + r->energy_kwh * c->usd_per_kwh;
		if (cloud_per_h > 0.0) {
			/* a month: renting its busy hours, against the upkeep and
			 * the energy of those hours */
			double opex = c->upkeep_usd_per_year / 12.0 +
				      u * r->avg_power_kw * COST_HOURS_PER_MONTH * c->usd_per_kwh;
			double cloud = u * cloud_per_h * COST_HOURS_PER_MONTH;
			r->breakeven_months = cloud > opex ? capital / (cloud - opex) : -1.0;
		}
	} else {
		r->cost_usd = cloud_per_h * hours;
	}
	r->usd_per_hour = hours > 0.0 ? r->cost_usd / hours : 0.0;
	r->usd_per_gpu_hour = r->gpu_hours > 0.0 ? r->cost_usd / r->gpu_hours : 0.0;
	double tokens = steps * (double)sc->training.global_batch * (double)sc->training.seq_len;
	r->usd_per_mtokens = tokens > 0.0 ? r->cost_usd / (tokens / 1e6) : 0.0;
}
