#ifndef SWITCHBOARD_MALLOC_H
#define SWITCHBOARD_MALLOC_H

#include <stdbool.h>

/// Bytes the C library's malloc has handed out and not had back (small blocks in use plus
/// blocks mapped on their own), or -1 where the C library cannot say. glibc 2.33 or later;
/// -1 elsewhere.
long long switchboard_malloc_bytes_in_use(void);

/// Gives the heap's free pages back to the kernel (glibc's `malloc_trim(0)`), so that the
/// resident size read next counts what is in use, not what malloc keeps for later. False where
/// the C library has no such call.
bool switchboard_malloc_release_free_pages(void);

#endif
