/* Advising a buyer: the candidate clusters of a catalog (node type x node
 * count x rent or buy), the best layout of each from the search, the whole
 * run's time, energy and cost, the constraints each meets or misses, and
 * the time-versus-cost frontier.
 * SPDX-License-Identifier: MIT */
#ifndef TS_SWEEP_ADVISE_H
#define TS_SWEEP_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/env.h"
#include "run/result.h"
#include "sweep/search.h"

/* Most node types of a catalog, node counts per type, --set values per type. */
#define ADVISE_MAX_TYPES 32
#define ADVISE_MAX_COUNTS 12
#define ADVISE_MAX_SETS 8
/* Most --set values of the scenario itself. */
#define ADVISE_MAX_USER_SETS 64

/* One node type of the catalog (configs/README.md, "Candidate catalog").
 * Plain record. */
struct advise_node_type {
	char name[64];			    /* the type's name */
	char cluster[1024];		    /* bundled cluster name, or a file's absolute path */
	char sets[ADVISE_MAX_SETS][160];    /* --set values laid over the scenario */
	size_t nsets;			    /* of sets */
	char interconnect[160];		    /* in words: GPU links and fabric */
	char cooling[16];		    /* "air" or "liquid", as the vendor ships it */
	double host_cores;		    /* CPU cores per node */
	double host_ram_bytes;		    /* host memory per node, bytes */
	double nvme_bytes;		    /* local NVMe per node, bytes */
	double node_power_w;		    /* rated power per node, W */
	uint32_t psu_count, psu_redundant;  /* power supplies, of which redundant (0, 0: unknown) */
	double psu_rating_w;		    /* one supply's rating, W */
	double psu_redundant_w;		    /* standby draw the redundant supplies add, W */
	double psu_redundant_usd;	    /* their price when not in server_usd, US$ */
	bool rent;			    /* a rent price is given */
	double usd_per_gpu_hour;	    /* rent, US$ per GPU-hour */
	bool buy;			    /* a purchase price is given */
	double server_usd, network_usd;	    /* purchase per node, US$ */
	uint32_t counts[ADVISE_MAX_COUNTS]; /* node counts to try, increasing */
	size_t ncounts;			    /* of counts */
	uint32_t gpus_per_node;		    /* the cluster file's (filled when evaluated) */
	char gpu[48];			    /* the cluster's GPU type (filled when evaluated) */
	int line;			    /* its line in the catalog */
	int cluster_line;		    /* the line of its cluster entry */
	int set_lines[ADVISE_MAX_SETS];	    /* the line of each sets entry */
};

/* A candidate catalog. Plain record. */
struct advise_catalog {
	char file[512];				     /* the catalog file */
	struct advise_node_type t[ADVISE_MAX_TYPES]; /* node types */
	size_t n;				     /* of t */
	double years;				     /* amortisation of a purchase, years */
	double upkeep_usd_per_node_year;	     /* US$ per node and year */
	double storage_usd;			     /* shared storage for the whole job, US$ */
	double usd_per_kwh;			     /* electricity, US$ per kWh */
	double pue;				     /* power usage effectiveness */
};

/* Read catalog file `path` (names of clusters resolve through the data root
 * of env when not a path; a relative path is read from the catalog's
 * folder). Errors name the file, line and key, what was found and what was
 * expected: TS_EIO, TS_ESYNTAX, TS_EUNKNOWN_KEY, TS_ETYPE, TS_ERANGE,
 * TS_EUNIT, TS_EINVALID, TS_ELIMIT. */
int advise_catalog_load(const char *path, struct advise_catalog *out, struct ts_error *err);

enum advise_mode { ADVISE_RENT = 1, ADVISE_BUY = 2, ADVISE_BOTH = 3 };

/* What the buyer asks. Plain record; a zero field is no constraint. */
struct advise_ask {
	double deadline_s;   /* time to train at most, s */
	double budget_usd;   /* outlay at most, US$ (rent: the run; buy: purchase + the
			      * run's energy and upkeep) */
	int mode;	     /* enum advise_mode bits */
	double power_w;	     /* power limit, W: the facility's (nodes x node power x PUE)
			      * or, with per_rack, one rack's (node power x nodes in it) */
	bool per_rack;	     /* power_w is per rack */
	uint32_t max_gpus;   /* GPUs at most */
	bool full_search;    /* search every option at its own node count (exact, slow)
			      * instead of transferring a reference search's layouts */
	size_t transfer_top; /* layouts a reference search hands on (0: ADVISE_TOP; at most
			      * ADVISE_MAX_TOP) */
};

/* Layouts of a node type's reference search tried at each node count, and
 * the nodes of that search: two nodes, the least that has a network, and a
 * search of seconds (16 GPUs of a 13B model: 1.7 s on one core). */
#define ADVISE_TOP 6
/* The most layouts a reference search hands on (each carried three ways). */
#define ADVISE_MAX_TOP 21
#define ADVISE_REF_NODES 2

/* One option: a node type, a node count, rent or buy. Plain record. */
struct advise_option {
	size_t type;			 /* index in the catalog */
	uint32_t nodes, gpus;		 /* the cluster */
	int mode;			 /* ADVISE_RENT or ADVISE_BUY */
	bool evaluated;			 /* a layout was simulated and fits */
	struct search_cand cand;	 /* the layout (cand.res: its result, as `run` gives it on
					  * the exported scenario) */
	double time_s;			 /* time to train, s */
	double time_lo_s, time_hi_s;	 /* its band (advise_band) */
	double time_mid_s;		 /* the band's p50 */
	double cost_usd;		 /* the run's cost (rent: hours x price; buy: amortised
					  * capital, upkeep and energy), US$ */
	double cost_lo_usd, cost_hi_usd; /* its band */
	double cost_mid_usd;		 /* the band's p50 */
	double outlay_usd;		 /* money spent: rent the cost; buy the purchase
					  * (capital) plus the run's energy and upkeep, US$ */
	double capital_usd;		 /* buy: nodes x (server + network + redundant
					  * supplies) + storage, US$ */
	double energy_kwh;		 /* facility energy, kWh */
	double it_power_w;		 /* nodes x rated node power, W */
	char fails[256];		 /* the constraints it misses, "; "-separated ("" none) */
	char risk[160]; /* with a deadline, where the 80 % time band crosses it (the
			 * headline decides whether the option meets it): "at risk: its
			 * band reaches T" when the headline meets it and the band's p90
			 * does not, "may meet it: its band starts at T" when the headline
			 * misses it and the band's p10 meets it; "" otherwise */
	bool frontier;	/* it meets the constraints and no other that
			 * does is at least as fast and as cheap and
			 * better in one (with none meeting them: over
			 * every evaluated option; frontier_feasible) */
	char why[320];	/* one line: what sets its pace and what would change it */
	char sets[ADVISE_MAX_SETS + 4][1040]; /* its --set values over the scenario (cluster,
					       * nodes, the type's sets, power, cost) */
	size_t nsets;
	int rc;	       /* 0, or the error of its search or simulation */
	char err[512]; /* that error's message */
};

/* What advise_run found. Owned by the caller; free with advise_result_free. */
struct advise_result {
	struct advise_catalog cat;
	struct advise_option *o; /* options in catalog order: type, count, rent then buy */
	size_t n;
	size_t cap;		      /* allocated elements of o */
	size_t cheapest;	      /* the cheapest that meets every constraint (n: none) */
	size_t fastest;		      /* the fastest that meets every constraint (n: none) */
	size_t cheapest_mode[2];      /* the cheapest rented [0] and bought [1] (n: none) */
	bool frontier_feasible;	      /* the frontier is of the options that meet every
				       * constraint (false: none does, it is of all) */
	size_t searches;	      /* searches run */
	size_t simulated;	      /* layouts simulated, searches included */
	double seconds;		      /* wall time, s */
	double cpu_seconds;	      /* CPU time of the process, s */
	double dataset_bytes;	      /* the dataset on disk, bytes */
	double loader_cores_per_gpu;  /* CPU cores the input pipeline asks per GPU (its workers) */
	double decode_core_s_per_tok; /* decode core-seconds per sample or token */
	bool per_token;		      /* the dataset's sizes are per token */
	char scenario_name[160];
	char model_name[64]; /* the model's name ("llama2-13b") */
	int64_t layers;	     /* the model's layers */
};

/* The p10 and p90 of figure `key` ("time_to_train_s" or "cost_usd") of
 * result r: its reported 80 % band (ts_result.band: the replicas' spread
 * widened by the model error of the run's regime, sim/run/band.h). Units
 * of the figure (s, US$). The one place advice reads a band from. */
void advise_band(const struct ts_result *r, const char *key, double *lo, double *mid, double *hi);

/* Money v (US$) as the advice prints it everywhere: "$0", "$570", "$570k",
 * "$1.28M", into b (size n). */
void advise_money(char *b, size_t n, double v);

/* Duration s (seconds) as the advice prints it everywhere, in the unit that
 * fits (ts_units_format_duration, as report_fmt RQ_DURATION: "12.3 s", "35.2 min", "30.0 h", "59.9
 * days"), into b (size n). */
void advise_duration(char *b, size_t n, double s);

/* The label of what sets the pace of iteration r: the largest of its
 * shares (compute with recompute, exposed communication, pipeline bubble,
 * data stall, optimizer with the rest of the host's work), as
 * "compute-bound", "network-bound", "bubble-bound", "loader-bound" or
 * "optimizer-and-host-bound"; ties go to the earlier. A static string. */
const char *advise_bound(const struct ts_result *r);

/* Mark on[i] for each of the n points (time[i], cost[i]) that no other
 * point dominates (at most as slow and as costly, and better in one);
 * points whose ok[i] is false (NULL: all true) are neither marked nor
 * dominate. Equal points are all kept. O(n^2). */
void advise_frontier(const double *time, const double *cost, const bool *ok, size_t n, bool *on);

/* Advise on scenario `path` (with sets) from catalog `catalog_path`: for
 * each node type, node count and mode, the best layout and its whole run,
 * constraints, frontier and why lines, into *out. Options beyond max_gpus
 * are listed with that constraint and not simulated. Returns 0, the
 * scenario's or catalog's error, or TS_ENOMEM; an option whose search
 * fails keeps its error in its rc and err. */
int advise_run(const struct ts_env *env, const char *path, const char *const *sets, size_t nsets,
	       const char *catalog_path, const struct advise_ask *ask, struct advise_result *out,
	       struct ts_error *err);

void advise_result_free(struct advise_result *r);

#endif
