/* Time conversion.
 * SPDX-License-Identifier: MIT */
#include "base/ts.h"

#include <math.h>

ts_time ts_time_from_s(double s)
{
	if (isnan(s))
		return TS_TIME_MAX;
	if (s <= 0.0)
		return 0;
	double ns = ceil(s * TS_NS_PER_S);
	if (ns >= 9.2e18)
		return TS_TIME_MAX;
	return (ts_time)ns;
}
