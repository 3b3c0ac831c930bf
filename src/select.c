/* select.c — placeholder, being written. */
#include "internal.h"
