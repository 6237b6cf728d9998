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

bool ts_time_add(ts_time now, ts_time dt, ts_time *at)
{
	if (dt >= TS_TIME_MAX - now) {
		*at = TS_TIME_MAX;
		return false;
	}
	*at = now + dt;
	return true;
}

bool ts_time_after(ts_time now, double s, ts_time *at)
{
	if (!isfinite(s) || s * TS_NS_PER_S >= 9.2e18) {
		*at = TS_TIME_MAX;
		return false;
	}
	return ts_time_add(now, ts_time_from_s(s), at);
}
