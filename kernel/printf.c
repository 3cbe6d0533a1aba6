#include "kernel/printf.h"

#include <stdbool.h>
#include <stdint.h>

enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LONG_LONG, LEN_SIZE };

struct spec {
    bool left;     /* '-' */
    bool zero;     /* '0' */
    int width;     /* 0: none */
    int precision; /* -1: none */
    enum length length;
};

struct output {
    format_putc_fn putc;
    void *ctx;
    int count;
};

static void emit(struct output *out, char c)
{
    out->putc(c, out->ctx);
    out->count++;
}

static void emit_n(struct output *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        emit(out, s[i]);
}

static void emit_repeat(struct output *out, char c, size_t n)
{
    while (n--)
        emit(out, c);
}

static size_t bounded_length(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n])
        n++;
    return n;
}

/* Lays out [spaces][prefix][zeros][body][spaces] to fill the field width. */
static void emit_field(struct output *out, const struct spec *sp, const char *prefix, size_t zeros,
                       const char *body, size_t len)
{
    size_t prefix_len = bounded_length(prefix, 2);
    size_t used = prefix_len + zeros + len;
    size_t pad = (size_t)sp->width > used ? (size_t)sp->width - used : 0;

    if (!sp->left)
        emit_repeat(out, ' ', pad);
    emit_n(out, prefix, prefix_len);
    emit_repeat(out, '0', zeros);
    emit_n(out, body, len);
    if (sp->left)
        emit_repeat(out, ' ', pad);
}

/* Writes the digits right-aligned into buf; returns where they start. */
static char *format_digits(char buf[24], uint64_t value, unsigned base, bool upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char *p = buf + 24;

    do {
        *--p = digits[value % base];
        value /= base;
    } while (value);
    return p;
}

static void emit_number(struct output *out, const struct spec *sp, uint64_t magnitude,
                        const char *prefix, unsigned base, bool upper)
{
    char buf[24];
    char *digits = format_digits(buf, magnitude, base, upper);
    size_t len = (size_t)(buf + sizeof(buf) - digits);
    size_t zeros = 0, used;

    if (sp->precision == 0 && magnitude == 0)
        len = 0; /* C: a zero precision prints no digits for zero */
    used = bounded_length(prefix, 2) + len;
    if (sp->precision >= 0) {
        if ((size_t)sp->precision > len)
            zeros = (size_t)sp->precision - len;
    } else if (sp->zero && !sp->left && (size_t)sp->width > used) {
        zeros = (size_t)sp->width - used;
    }
    emit_field(out, sp, prefix, zeros, digits, len);
}

/* h and hh narrow the promoted int back to what the caller passed. */
static int64_t fetch_signed(va_list *ap, enum length length)
{
    switch (length) {
    case LEN_CHAR:
        return (signed char)va_arg(*ap, int);
    case LEN_SHORT:
        return (short)va_arg(*ap, int);
    case LEN_LONG:
        return va_arg(*ap, long);
    case LEN_LONG_LONG:
        return va_arg(*ap, long long);
    case LEN_SIZE:
        return (int64_t)va_arg(*ap, size_t);
    default:
        return va_arg(*ap, int);
    }
}

static uint64_t fetch_unsigned(va_list *ap, enum length length)
{
    switch (length) {
    case LEN_CHAR:
        return (unsigned char)va_arg(*ap, unsigned int);
    case LEN_SHORT:
        return (unsigned short)va_arg(*ap, unsigned int);
    case LEN_LONG:
        return va_arg(*ap, unsigned long);
    case LEN_LONG_LONG:
        return va_arg(*ap, unsigned long long);
    case LEN_SIZE:
        return va_arg(*ap, size_t);
    default:
        return va_arg(*ap, unsigned int);
    }
}

static void emit_signed(struct output *out, const struct spec *sp, va_list *ap)
{
    int64_t v = fetch_signed(ap, sp->length);
    /* Negating in unsigned arithmetic keeps INT64_MIN exact. */
    uint64_t magnitude = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    emit_number(out, sp, magnitude, v < 0 ? "-" : "", 10, false);
}

static void emit_pointer(struct output *out, const struct spec *sp, va_list *ap)
{
    struct spec full = *sp;

    full.precision = 16;
    emit_number(out, &full, (uintptr_t)va_arg(*ap, void *), "0x", 16, false);
}

static void emit_string(struct output *out, const struct spec *sp, const char *s)
{
    size_t max = sp->precision >= 0 ? (size_t)sp->precision : SIZE_MAX;

    if (!s)
        s = "(null)";
    emit_field(out, sp, "", 0, s, bounded_length(s, max));
}

static void emit_char(struct output *out, const struct spec *sp, char c)
{
    emit_field(out, sp, "", 0, &c, 1);
}

/* Returns false for an unknown conversion, which the caller prints as is. */
static bool emit_conversion(struct output *out, const struct spec *sp, char conv, va_list *ap)
{
    switch (conv) {
    case 'd':
    case 'i':
        emit_signed(out, sp, ap);
        return true;
    case 'u':
    case 'x':
    case 'X':
        emit_number(out, sp, fetch_unsigned(ap, sp->length), "", conv == 'u' ? 10 : 16,
                    conv == 'X');
        return true;
    case 'p':
        emit_pointer(out, sp, ap);
        return true;
    case 's':
        emit_string(out, sp, va_arg(*ap, const char *));
        return true;
    case 'c':
        emit_char(out, sp, (char)va_arg(*ap, int));
        return true;
    case '%':
        emit(out, '%');
        return true;
    default:
        return false;
    }
}

static const char *parse_flags(const char *f, struct spec *sp)
{
    for (;; f++) {
        if (*f == '-')
            sp->left = true;
        else if (*f == '0')
            sp->zero = true;
        else
            return f;
    }
}

/* A number, or '*' taking an int argument. Saturates instead of overflowing. */
static const char *parse_count(const char *f, int *count, va_list *ap)
{
    if (*f == '*') {
        *count = va_arg(*ap, int);
        return f + 1;
    }
    *count = 0;
    for (; *f >= '0' && *f <= '9'; f++)
        *count = *count > (INT32_MAX - 9) / 10 ? INT32_MAX : *count * 10 + (*f - '0');
    return f;
}

static const char *parse_width_precision(const char *f, struct spec *sp, va_list *ap)
{
    f = parse_count(f, &sp->width, ap);
    if (sp->width < 0) { /* C: a negative '*' width means left-aligned */
        sp->left = true;
        sp->width = sp->width == INT32_MIN ? INT32_MAX : -sp->width;
    }
    if (*f == '.') {
        f = parse_count(f + 1, &sp->precision, ap);
        if (sp->precision < 0) /* C: a negative '*' precision means none */
            sp->precision = -1;
    }
    return f;
}

static const char *parse_length(const char *f, enum length *length)
{
    if (f[0] == 'h') {
        *length = f[1] == 'h' ? LEN_CHAR : LEN_SHORT;
        return f + (f[1] == 'h' ? 2 : 1);
    }
    if (f[0] == 'l') {
        *length = f[1] == 'l' ? LEN_LONG_LONG : LEN_LONG;
        return f + (f[1] == 'l' ? 2 : 1);
    }
    if (f[0] == 'z') {
        *length = LEN_SIZE;
        return f + 1;
    }
    *length = LEN_INT;
    return f;
}

/* Handles one directive starting just after '%'; returns where to go on. */
static const char *format_directive(struct output *out, const char *f, va_list *ap)
{
    const char *start = f - 1;
    struct spec sp = {.left = false, .zero = false, .width = 0, .precision = -1};

    f = parse_flags(f, &sp);
    f = parse_width_precision(f, &sp, ap);
    f = parse_length(f, &sp.length);
    if (*f == '\0') { /* a lone '%' at the end: print what there is */
        emit_n(out, start, (size_t)(f - start));
        return f;
    }
    if (!emit_conversion(out, &sp, *f, ap))
        emit_n(out, start, (size_t)(f + 1 - start));
    return f + 1;
}

int kformat(format_putc_fn putc, void *ctx, const char *fmt, va_list ap)
{
    struct output out = {.putc = putc, .ctx = ctx, .count = 0};
    va_list args;

    /* A copy, so helpers can share it through a pointer whatever va_list is. */
    va_copy(args, ap);
    while (*fmt) {
        if (*fmt == '%')
            fmt = format_directive(&out, fmt + 1, &args);
        else
            emit(&out, *fmt++);
    }
    va_end(args);
    return out.count;
}

struct buffer {
    char *buf;
    size_t size;
    size_t len; /* characters produced, stored or not */
};

static void buffer_putc(char c, void *ctx)
{
    struct buffer *b = ctx;

    if (b->len + 1 < b->size)
        b->buf[b->len] = c;
    b->len++;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct buffer b = {.buf = buf, .size = size, .len = 0};
    int n = kformat(buffer_putc, &b, fmt, ap);

    if (size > 0)
        buf[b.len < size ? b.len : size - 1] = '\0';
    return n;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = kvsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

void ksnprint_bytes(char *buf, size_t size, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t at = 0;

    if (size == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at + (i ? 3 : 2) < size; i++)
        at += (size_t)ksnprintf(buf + at, size - at, "%s%02x", i ? " " : "", b[i]);
}
