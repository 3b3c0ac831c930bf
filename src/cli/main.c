/* placeholder */
#include <usmp/usmp.h>
int main(void) { return 0; }
