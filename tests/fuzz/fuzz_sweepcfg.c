/* libFuzzer target for sweep files: the input is the text of a sweep file.
 * A loaded sweep must be consistent (its point count the product of its axis
 * lengths, or their common length when zipped); a failure must leave no
 * sweep and give a one-line message.
 * SPDX-License-Identifier: MIT */
#include "fuzzutil.h"
#include "io/sweepcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	char *text = fuzz_text(data, size);
	if (!text)
		return 0;
	struct sweep_spec *sp = NULL;
	struct ts_error e;
	int rc = sweepcfg_load_string(text, "fuzz-sweep.cfg", &sp, &e);
	if (rc == 0) {
		if (!sp || sp->naxes == 0 || sp->naxes > SWEEP_MAX_AXES || sp->npoints == 0 ||
		    (!sp->base_path == !sp->base_text))
			abort();
		size_t product = 1;
		for (size_t k = 0; k < sp->naxes; k++) {
			const struct sweep_axis *a = &sp->axes[k];
			if (a->n == 0 || !a->key[0])
				abort();
			for (size_t i = 0; i < a->n; i++)
				if (!a->set[i] || !a->shown[i])
					abort();
			if (sp->zip && a->n != sp->axes[0].n)
				abort();
			product *= a->n;
		}
		if (sp->npoints != (sp->zip ? sp->axes[0].n : product))
			abort();
		/* every point's value indices lie in their axes */
		for (size_t i = 0; i < sp->npoints && i < 64; i++)
			for (size_t k = 0; k < sp->naxes; k++)
				if (sweepcfg_value_index(sp, i, k) >= sp->axes[k].n)
					abort();
		sweepcfg_destroy(sp);
	} else {
		if (sp != NULL)
			abort();
		fuzz_check_error(&e, rc);
	}
	free(text);
	return 0;
}
