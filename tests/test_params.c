/* placeholder */
#include <criterion/criterion.h>
#include "support.h"
Test(placeholder_params, builds) { cr_assert(1); }
