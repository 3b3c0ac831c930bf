/* placeholder */
#include <criterion/criterion.h>
#include "support.h"
Test(placeholder_bound, builds) { cr_assert(1); }
