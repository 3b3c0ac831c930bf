/* placeholder */
#include <criterion/criterion.h>
#include "support.h"
Test(placeholder_conflicts, builds) { cr_assert(1); }
