/* io_csv.c — placeholder, being written. */
#include "internal.h"
