/* The numbers behind the charts (ts_plot_prepare), computed by hand:
 * scaling groups a two-axis sweep into a series per value of the other
 * axis, each sorted by x with its ideal line from its own first point;
 * rows that failed or do not fit are left out; --x and --series choose
 * the columns; the settings name the x axis with its unit; compare gives
 * each metric relative to the first scenario.
 * SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainsim.h"
#include "testutil.h"

/* Out of order on purpose; tp = 2 scales worse; one failed and one
 * unfitting row. Per GPU at the first point of each series: tp 1 1000
 * tokens/s over 8 GPUs (125 per GPU), tp 2 800 (100 per GPU). */
static const char sweep_csv[] = "point,nodes,parallel.tp,status,name,gpus,tokens_per_s,fits\n"
				"0,4,1,ok,S,32,3600,true\n"
				"1,1,1,ok,S,8,1000,true\n"
				"2,2,1,ok,S,16,1900,true\n"
				"3,1,2,ok,S,8,800,true\n"
				"4,2,2,ok,S,16,1400,true\n"
				"5,4,2,invalid: no,S,32,,\n"
				"6,8,2,ok,S,64,9999,false\n";

struct out {
	char *data, *set;
	char script[4096];
	int rc;
};

static struct out prepare(const char *kind, const char *csv, const ts_plot_opts *o)
{
	struct out r = {0};
	size_t nd, ns;
	ts_env *env;
	ck_assert_int_eq(ts_env_open(tu_root(), &env), 0);
	tu_put("r.csv", csv);
	FILE *d = open_memstream(&r.data, &nd), *s = open_memstream(&r.set, &ns);
	r.rc = ts_plot_prepare(env, kind, tu_at("r.csv"), o, d, s, r.script, sizeof r.script);
	fclose(d);
	fclose(s);
	ts_env_close(env);
	return r;
}

static void done(struct out *r)
{
	free(r->data);
	free(r->set);
}

START_TEST(test_scaling_band)
{
	/* the band columns of a sweep's CSV become the shaded area's edges */
	static const char csv[] = "point,nodes,status,name,gpus,tokens_per_s,tokens_per_s_p10,"
				  "tokens_per_s_p90,fits\n"
				  "0,1,ok,S,8,1000,850,1180,true\n"
				  "1,2,ok,S,16,1900,1600,2250,true\n";
	struct out r = prepare("scaling", csv, NULL);
	ck_assert_msg(r.rc == 0, "%s", ts_errmsg());
	ck_assert_ptr_nonnull(strstr(r.data, "1 1000 1000 1 8 850 1180\n"));
	ck_assert_ptr_nonnull(strstr(r.data, "2 1900 2000 0.94999999999999996 16 1600 2250\n"));
	done(&r);
}
END_TEST

START_TEST(test_scaling_series_and_ideal)
{
	struct out r = prepare("scaling", sweep_csv, NULL);
	ck_assert_msg(r.rc == 0, "%s", ts_errmsg());
	ck_assert_ptr_nonnull(strstr(r.script, "/plots/scaling.gp"));
	/* x tokens/s ideal efficiency gpus p10 p90 (without band columns
	 * the band is the figure); blocks apart by two blank lines */
	const char *want = "\"tp = 1\" x tokens_per_s ideal efficiency gpus tokens_per_s_p10 "
			   "tokens_per_s_p90\n"
			   "1 1000 1000 1 8 1000 1000\n"
			   "2 1900 2000 0.94999999999999996 16 1900 1900\n"
			   "4 3600 4000 0.90000000000000002 32 3600 3600\n"
			   "\n\n"
			   "\"tp = 2\" x tokens_per_s ideal efficiency gpus tokens_per_s_p10 "
			   "tokens_per_s_p90\n"
			   "1 800 800 1 8 800 800\n"
			   "2 1400 1600 0.875 16 1400 1400\n";
	ck_assert_str_eq(r.data, want);
	ck_assert_ptr_nonnull(strstr(r.set, "xlabel = 'nodes (count)'"));
	ck_assert_ptr_nonnull(strstr(r.set, "nseries = 2\n"));
	ck_assert_ptr_nonnull(strstr(r.set, "title_plot = 'Throughput scaling: S'"));
	ck_assert_ptr_nonnull(strstr(r.set, "logx = 0"));
	done(&r);
}
END_TEST

START_TEST(test_scaling_options)
{
	ts_plot_opts o = {.title = "It's mine", .x = "gpus", .series = "nodes", .log_x = true};
	struct out r = prepare("scaling", sweep_csv, &o);
	ck_assert_msg(r.rc == 0, "%s", ts_errmsg());
	/* three series of nodes, x = gpus; a quote in the title written as a
	 * concatenation (gnuplot 5.4 misreads a doubled quote at the start) */
	ck_assert_ptr_nonnull(strstr(r.data, "\"nodes = 1\" x"));
	ck_assert_ptr_nonnull(strstr(r.data, "\"nodes = 2\" x"));
	ck_assert_ptr_nonnull(strstr(r.data, "\"nodes = 4\" x"));
	ck_assert_ptr_nonnull(strstr(r.set, "nseries = 3\n"));
	ck_assert_ptr_nonnull(strstr(r.set, "xlabel = 'GPUs (count)'"));
	ck_assert_ptr_nonnull(strstr(r.set, "title_plot = 'It'.\"'\".'s mine'"));
	ck_assert_ptr_nonnull(strstr(r.set, "logx = 1"));
	done(&r);
	o = (ts_plot_opts){.series = "parallel.tp,nope"};
	r = prepare("scaling", sweep_csv, &o);
	ck_assert_int_eq(r.rc, TS_EINVALID);
	ck_assert_ptr_nonnull(strstr(ts_errmsg(), "found no column \"nope\""));
	done(&r);
	o = (ts_plot_opts){.x = "nodes"};
	r = prepare("memory", sweep_csv, &o);
	ck_assert_int_eq(r.rc, TS_EUSAGE);
	done(&r);
}
END_TEST

START_TEST(test_bars_labelled_by_axes)
{
	static const char csv[] =
	    "point,nodes,parallel.tp,status,name,gpus,compute_s,recompute_s,exposed_comm_s,"
	    "bubble_s,data_stall_s,optimizer_s,other_s\n"
	    "0,16,8,ok,S,128,1,0,0.5,0,0,0.25,0\n";
	struct out r = prepare("breakdown", csv, NULL);
	ck_assert_msg(r.rc == 0, "%s", ts_errmsg());
	ck_assert_str_eq(r.data, "\"nodes=16 tp=8\" 1 0 0.5 0 0 0.25 0\n");
	ck_assert_ptr_nonnull(strstr(r.set, "xlabel = 'sweep points: nodes, tp'"));
	done(&r);
}
END_TEST

START_TEST(test_compare_relative_to_first)
{
	/* trainsim compare --format csv: a row per scenario; B's 0.5 s
	 * against A's 2 s is 0.25, its $300 against $100 is 3 */
	static const char csv[] = "name,file,gpus,iteration_time_s,fits,cost_usd,best\n"
				  "A,a.cfg,4,2,true,100,cost_usd\n"
				  "B,b.cfg,128,0.5,true,300,iteration_time_s\n";
	struct out r = prepare("compare", csv, NULL);
	ck_assert_msg(r.rc == 0, "%s", ts_errmsg());
	ck_assert_str_eq(r.data, "\"metric\" \"A\" \"B\"\n"
				 "\"iteration time\" 1 0.25\n"
				 "\"cost\" 1 3\n");
	ck_assert_ptr_nonnull(strstr(r.set, "nseries = 2\n"));
	ck_assert_ptr_nonnull(strstr(r.set, "relative to A (= 1)"));
	done(&r);
	/* the transposed layout (a row per metric) is not compare's CSV */
	static const char old[] = "metric,A,B,best\n"
				  "iteration_time_s,2,0.5,B\n";
	r = prepare("compare", old, NULL);
	ck_assert_int_eq(r.rc, TS_EINVALID);
	ck_assert_ptr_nonnull(strstr(ts_errmsg(), "found no \"name\" column"));
	done(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tu_tcase("plot");
	tcase_add_test(tc, test_scaling_series_and_ideal);
	tcase_add_test(tc, test_scaling_band);
	tcase_add_test(tc, test_scaling_options);
	tcase_add_test(tc, test_bars_labelled_by_axes);
	tcase_add_test(tc, test_compare_relative_to_first);
	suite_add_tcase(s, tc);
	return tu_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
