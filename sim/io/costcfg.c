/* Reading the cost, checkpoint, power and failures groups of a scenario. Every key is
 * optional; prices default to "not given" (0), the facility figures to the
 * sourced averages of costcfg.h. Quantities with units go through
 * sim/base/units (power in W, bandwidth in bytes/s, time in s).
 * SPDX-License-Identifier: MIT */
#include <string.h>

#include "base/units.h"
#include "io/costcfg.h"
#include "base/cfg.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const cost_keys[] = {
    "usd_per_gpu_hour", "usd_per_node_hour", "owned", "usd_per_kwh", "pue", "utilisation"};
static const char *const owned_keys[] = {"server_usd", "network_usd", "storage_usd", "years",
					 "upkeep_usd_per_year"};
static const char *const ck_keys[] = {"interval", "write_bandwidth", "storage"};
static const char *const fail_keys[] = {"gpu_mtbf", "node_mtbf", "restart"};
static const char *const power_keys[] = {"node_max", "gpu_comm_fraction", "gpu_idle_fraction",
					 "nic",	     "switch_port",	  "gpu_limit"};

static const config_setting_t *member(const config_setting_t *g, const char *name)
{
	return g ? config_setting_get_member(g, name) : NULL;
}

/* Group `name` of g, NULL when absent; TS_ETYPE when not a group. */
static int sub(const config_setting_t *g, const char *name, const char *key, const char *file,
	       const config_setting_t **out, struct ts_error *err)
{
	*out = member(g, name);
	if (*out && !config_setting_is_group(*out)) {
		char fb[160];
		return cfg_fail(err, TS_ETYPE, *out, file, key,
				"found %s, expected a group { ... }",
				cfg_found(*out, fb, sizeof fb));
	}
	return 0;
}

/* Sanity bounds of the quantities below. Each lies orders of magnitude
 * outside any real figure and keeps every whole-run result (checkpoint
 * count and time, failures, energy) finite:
 * - checkpoint.write_bandwidth 1 kB/s to 1e15 B/s: a 1 kB/s store is 10^5
 *   below a single HDD; 1 PB/s is 10^3 above the largest parallel file
 *   systems;
 * - checkpoint.interval (a time) 1 ms to 1e9 s (32 years): real intervals
 *   are minutes to hours;
 * - failures.gpu_mtbf and node_mtbf 1 s to 1e15 s: real MTBFs are 10^4 to
 *   10^7 hours; failures.restart at most 1e7 s (116 days; real: minutes);
 * - power.node_max 1 W to 10 MW (a DGX B200 is 14.3 kW); power.nic and
 *   power.switch_port at most 100 kW (real: 10 to 30 W); power.gpu_limit
 *   1 W to 100 kW here, and the plan holds it to the GPU's own range
 *   (its catalog power_min to its TDP). */
#define CK_WRITE_MIN 1e3
#define CK_WRITE_MAX 1e15
#define CK_INTERVAL_MIN 1e-3
#define CK_INTERVAL_MAX 1e9
#define MTBF_MIN 1.0
#define MTBF_MAX 1e15
#define RESTART_MAX 1e7
#define NODE_W_MIN 1.0
#define NODE_W_MAX 1e7
#define PART_W_MAX 1e5

/* cost.utilisation: a share of the year, (0, 1]; below 0.1 % (9 hours a
 * year) the hardware's cost per busy hour is a thousand times its cost
 * per hour, no longer a question of utilisation. */
#define UTIL_MIN 1e-3

/* Optional number (kind TS_UNIT_COUNT_) or quantity with a unit of member
 * `name` of g, in [lo, hi], into *v (left alone when absent): 0 or an
 * error. */
static int opt(const config_setting_t *g, const char *name, const char *prefix, const char *file,
	       enum ts_unit_kind kind, double lo, double hi, double *v, struct ts_error *err)
{
	int rc = cfg_get_number(g, name, kind, false, lo, hi, v, file, prefix, err);
	return rc < 0 ? rc : 0;
}

static int read_cost(const config_setting_t *g, const char *file, struct ts_cost *c,
		     struct ts_error *err)
{
	const char *p = "cost.";
	const config_setting_t *o;
	int rc;
	if ((rc = cfg_check_keys(g, file, p, cost_keys, COUNT(cost_keys), err)) ||
	    (rc = opt(g, "usd_per_gpu_hour", p, file, TS_UNIT_COUNT_, 0.0, 1e6,
		      &c->usd_per_gpu_hour, err)) ||
	    (rc = opt(g, "usd_per_node_hour", p, file, TS_UNIT_COUNT_, 0.0, 1e7,
		      &c->usd_per_node_hour, err)) ||
	    (rc = opt(g, "usd_per_kwh", p, file, TS_UNIT_COUNT_, 0.0, 100.0, &c->usd_per_kwh,
		      err)) ||
	    (rc = opt(g, "pue", p, file, TS_UNIT_COUNT_, 1.0, 10.0, &c->pue, err)) ||
	    (rc = opt(g, "utilisation", p, file, TS_UNIT_COUNT_, UTIL_MIN, 1.0, &c->utilisation,
		      err)) ||
	    (rc = sub(g, "owned", "cost.owned", file, &o, err)))
		return rc;
	if (!o)
		return 0;
	p = "cost.owned.";
	c->owned = true;
	if ((rc = cfg_check_keys(o, file, p, owned_keys, COUNT(owned_keys), err)) ||
	    (rc = opt(o, "server_usd", p, file, TS_UNIT_COUNT_, 0.0, 1e12, &c->server_usd, err)) ||
	    (rc =
		 opt(o, "network_usd", p, file, TS_UNIT_COUNT_, 0.0, 1e12, &c->network_usd, err)) ||
	    (rc =
		 opt(o, "storage_usd", p, file, TS_UNIT_COUNT_, 0.0, 1e12, &c->storage_usd, err)) ||
	    (rc = opt(o, "years", p, file, TS_UNIT_COUNT_, 0.1, 100.0, &c->years, err)) ||
	    (rc = opt(o, "upkeep_usd_per_year", p, file, TS_UNIT_COUNT_, 0.0, 1e12,
		      &c->upkeep_usd_per_year, err)))
		return rc;
	if (!member(o, "server_usd"))
		return cfg_fail(err, TS_EINVALID, o, file, "cost.owned.server_usd",
				"found nothing, expected the purchase price of one node "
				"(server_usd = 199000;)");
	return 0;
}

static int read_checkpoint(const config_setting_t *g, const char *file, struct ts_checkpoint *k,
			   struct ts_error *err)
{
	const char *p = "checkpoint.";
	int rc;
	if ((rc = cfg_check_keys(g, file, p, ck_keys, COUNT(ck_keys), err)) ||
	    (rc = opt(g, "write_bandwidth", p, file, TS_UNIT_BANDWIDTH, CK_WRITE_MIN, CK_WRITE_MAX,
		      &k->write_Bps, err)))
		return rc;
	const config_setting_t *st = member(g, "storage");
	if (st) {
		char fb[160];
		const char *v = config_setting_type(st) == CONFIG_TYPE_STRING
				    ? config_setting_get_string(st)
				    : NULL;
		if (!v || !*v || strlen(v) >= sizeof k->storage)
			return cfg_fail(err, v ? TS_ERANGE : TS_ETYPE, st, file,
					"checkpoint.storage",
					"found %s, expected the name of a storage type of "
					"configs/hardware/storage.cfg (\"local-nvme\")",
					cfg_found(st, fb, sizeof fb));
		memcpy(k->storage, v, strlen(v) + 1);
	}
	const config_setting_t *iv = member(g, "interval");
	if (!iv)
		return 0;
	if (config_setting_type(iv) == CONFIG_TYPE_STRING &&
	    !strcmp(config_setting_get_string(iv), "auto")) {
		k->interval_auto = true;
		return 0;
	}
	if (config_setting_type(iv) == CONFIG_TYPE_STRING &&
	    !strcmp(config_setting_get_string(iv), "none")) {
		k->interval_none = true;
		return 0;
	}
	if (config_setting_type(iv) == CONFIG_TYPE_STRING)
		return opt(g, "interval", p, file, TS_UNIT_TIME, CK_INTERVAL_MIN, CK_INTERVAL_MAX,
			   &k->interval_s, err);
	int64_t n;
	if ((rc = cfg_int(iv, file, "checkpoint.interval", 1, (int64_t)1 << 50, &n, err)))
		return rc;
	k->interval_steps = (double)n;
	return 0;
}

static int read_power(const config_setting_t *g, const char *file, struct ts_power *w,
		      struct ts_error *err)
{
	const char *p = "power.";
	int rc;
	if ((rc = cfg_check_keys(g, file, p, power_keys, COUNT(power_keys), err)) ||
	    (rc = opt(g, "node_max", p, file, TS_UNIT_POWER, NODE_W_MIN, NODE_W_MAX, &w->node_max_w,
		      err)) ||
	    (rc = opt(g, "gpu_comm_fraction", p, file, TS_UNIT_COUNT_, 0.0, 1.0, &w->gpu_comm_frac,
		      err)) ||
	    (rc = opt(g, "gpu_idle_fraction", p, file, TS_UNIT_COUNT_, 0.0, 1.0, &w->gpu_idle_frac,
		      err)) ||
	    (rc = opt(g, "nic", p, file, TS_UNIT_POWER, 0.0, PART_W_MAX, &w->nic_w, err)) ||
	    (rc = opt(g, "switch_port", p, file, TS_UNIT_POWER, 0.0, PART_W_MAX, &w->switch_port_w,
		      err)) ||
	    (rc = opt(g, "gpu_limit", p, file, TS_UNIT_POWER, NODE_W_MIN, PART_W_MAX,
		      &w->gpu_limit_w, err)))
		return rc;
	return 0;
}

/* failures = { ... }: each MTBF a time or "none" (0). */
static int read_failures(const config_setting_t *g, const char *file, struct ts_failures *f,
			 struct ts_error *err)
{
	const char *p = "failures.";
	int rc;
	if ((rc = cfg_check_keys(g, file, p, fail_keys, COUNT(fail_keys), err)))
		return rc;
	const char *mtbf[2] = {"gpu_mtbf", "node_mtbf"};
	double *dst[2] = {&f->gpu_mtbf_s, &f->node_mtbf_s};
	for (int i = 0; i < 2; i++) {
		const config_setting_t *s = member(g, mtbf[i]);
		if (s && config_setting_type(s) == CONFIG_TYPE_STRING &&
		    !strcmp(config_setting_get_string(s), "none"))
			*dst[i] = 0.0;
		else if ((rc = opt(g, mtbf[i], p, file, TS_UNIT_TIME, MTBF_MIN, MTBF_MAX, dst[i],
				   err)))
			return rc;
	}
	return opt(g, "restart", p, file, TS_UNIT_TIME, 0.0, RESTART_MAX, &f->restart_s, err);
}

int costcfg_read(const void *top_, const char *file, struct ts_cost *cost, struct ts_checkpoint *ck,
		 struct ts_power *pw, struct ts_failures *fl, struct ts_error *err)
{
	const config_setting_t *top = top_, *gc, *gk, *gp, *gf;
	int rc;
	*cost = (struct ts_cost){.years = COSTCFG_YEARS,
				 .usd_per_kwh = COSTCFG_USD_PER_KWH,
				 .pue = COSTCFG_PUE,
				 .utilisation = COSTCFG_UTILISATION};
	*ck = (struct ts_checkpoint){0};
	*pw = (struct ts_power){.gpu_comm_frac = COSTCFG_GPU_COMM_FRAC,
				.gpu_idle_frac = COSTCFG_GPU_IDLE_FRAC,
				.nic_w = COSTCFG_NIC_W,
				.switch_port_w = COSTCFG_SWITCH_PORT_W};
	*fl = (struct ts_failures){.gpu_mtbf_s = COSTCFG_GPU_MTBF_S,
				   .node_mtbf_s = COSTCFG_NODE_MTBF_S,
				   .restart_s = COSTCFG_RESTART_S};
	if ((rc = sub(top, "cost", "cost", file, &gc, err)) ||
	    (rc = sub(top, "failures", "failures", file, &gf, err)) ||
	    (rc = read_failures(gf, file, fl, err)) ||
	    (rc = sub(top, "checkpoint", "checkpoint", file, &gk, err)) ||
	    (rc = sub(top, "power", "power", file, &gp, err)) ||
	    (rc = read_cost(gc, file, cost, err)) || (rc = read_checkpoint(gk, file, ck, err)) ||
	    (rc = read_power(gp, file, pw, err)))
		return rc;
	return 0;
}
