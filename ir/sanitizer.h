/* sanitizer.h: whether this translation unit is built under
 * AddressSanitizer. gcc says so with __SANITIZE_ADDRESS__, clang with
 * __has_feature(address_sanitizer); GRAFT_ASAN is defined (to 1) under
 * either, and nowhere else. The IR poisons spare instruction storage under
 * it (ir/ir.c); tests shorten their runs under it. */
#ifndef GRAFT_SANITIZER_H
#define GRAFT_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define GRAFT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRAFT_ASAN 1
#endif
#endif

#endif
