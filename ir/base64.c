/* base64.c: standard base64 decoding for literal data (see base64.h). */
#include "base64.h"

#include <stdint.h>

static int base64_digit(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static size_t padding(const char *p, size_t n)
{
    size_t pad = 0;
    while (pad < 2 && pad < n && p[n - 1 - pad] == '=')
        pad++;
    return pad;
}

bool base64_decoded_size(const char *p, size_t n, size_t *bytes)
{
    if (n % 4 != 0)
        return false;
    size_t pad = padding(p, n);
    for (size_t k = 0; k < n - pad; k++)
        if (base64_digit(p[k]) < 0)
            return false;
    *bytes = n / 4 * 3 - pad;
    return true;
}

void base64_decode(const char *p, size_t n, void *out, size_t bytes)
{
    size_t pad = padding(p, n);
    unsigned char *o = out;
    size_t at = 0;
    for (size_t k = 0; k < n; k += 4) {
        uint32_t v = 0;
        for (size_t j = 0; j < 4; j++)
            v = v << 6 | (uint32_t)(k + j < n - pad ? base64_digit(p[k + j]) : 0);
        for (int j = 0; j < 3 && at < bytes; j++)
            o[at++] = (unsigned char)(v >> (16 - 8 * j));
    }
}
