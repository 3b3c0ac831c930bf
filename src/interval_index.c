/* interval_index.c — placeholder, being written. */
#include "internal.h"
