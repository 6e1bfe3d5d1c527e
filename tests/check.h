/* Minimal assertions for the unit tests: print where and abort the test. */
#ifndef MPICAST_TEST_CHECK_H
#define MPICAST_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                    \
    do {                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                   \
        if (a_ != b_) {                                                       \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
                    __LINE__, #a, a_, #b, b_);                                \
            exit(1);                                                          \
        }                                                                     \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                    \
    do {                                                                      \
        const char *a_ = (a), *b_ = (b);                                      \
        if (strcmp(a_, b_) != 0) {                                            \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, \
                    __LINE__, #a, a_, b_);                                    \
            exit(1);                                                          \
        }                                                                     \
    } while (0)
#endif
