#include "switchboard_malloc.h"

#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

long long switchboard_malloc_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}

bool switchboard_malloc_release_free_pages(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
    return true;
#else
    return false;
#endif
}
