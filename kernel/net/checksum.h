/* The Internet checksum (RFC 1071): the ones' complement of the ones'
 * complement sum of 16-bit big-endian words, shared by IPv4, ICMP and UDP. */
#ifndef KERNEL_NET_CHECKSUM_H
#define KERNEL_NET_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Adds len bytes at p, as big-endian 16-bit words, to a running sum (an
 * odd last byte is padded with a zero byte); sums may be chained over
 * pieces of even length. The sum is defined modulo 0xffff: only
 * csum_fold's result is a field's value. */
uint32_t csum_add(uint32_t sum, const void *p, size_t len);

/* Folds a running sum to 16 bits and complements it: the field's value.
 * Over data that holds its own correct checksum, the result is 0. */
uint16_t csum_fold(uint32_t sum);

/* UDP's pseudo-header (RFC 768): addresses, protocol and length. */
uint32_t csum_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len);

#endif
