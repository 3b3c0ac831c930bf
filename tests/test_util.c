/* placeholder */
#include <criterion/criterion.h>
#include "support.h"
Test(placeholder_util, builds) { cr_assert(1); }
