#include "pv/platform_ops.h"

/* Set once by the entry path, before kernel_main(). */
const struct platform_ops *platform_ops;
