"""The network an address belongs to, for limits that count a network as one client.

A crowd is many addresses, but rarely many networks: a limit per network (a /24 of IPv4,
a /64 of IPv6, as providers hand them out) holds where a limit per address does not. An
IPv4 address written as IPv6 (``::ffff:a.b.c.d``) is the IPv4 address.

>>> network_of("127.0.5.7"), network_of("::ffff:127.0.5.7"), network_of("2001:db8:0:1:2:3:4:5")
('127.0.5.0/24', '127.0.5.0/24', '2001:db8:0:1::/64')
>>> network_of("not an address"), network_of(None)
(None, None)
"""

from __future__ import annotations

import functools
import ipaddress

__all__ = ["V4_PREFIX", "V6_PREFIX", "host_and_network", "network_of"]

V4_PREFIX = 24
"""Bits of an IPv4 address that name its network."""
V6_PREFIX = 64
"""Bits of an IPv6 address that name its network."""


@functools.lru_cache(maxsize=4096)  # a server sees the same few thousand addresses again and again
def host_and_network(address: str, v4: int = V4_PREFIX, v6: int = V6_PREFIX) -> tuple[str, str] | None:
    """``address`` written plainly (an IPv4 address as such, no IPv6 zone) and its network as
    text (``a.b.c.0/24``); None for what is not an IP address (a test's or a Unix socket's peer).

    >>> host_and_network("::ffff:10.1.2.3"), host_and_network("fe80::1%eth0", v6=10)
    (('10.1.2.3', '10.1.2.0/24'), ('fe80::1', 'fe80::/10'))
    """
    try:
        ip = ipaddress.ip_address(address.partition("%")[0])  # a zone (fe80::1%eth0) is no part of it
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # a dual-stack socket's IPv4 client is the same host
    prefix = v4 if ip.version == 4 else v6
    return str(ip), str(ipaddress.ip_network((ip, prefix), strict=False))


def network_of(address: str | None, v4: int = V4_PREFIX, v6: int = V6_PREFIX) -> str | None:
    """The network of ``address`` as text; None for None or what is not an IP address, which
    no network limit counts."""
    found = None if address is None else host_and_network(address, v4, v6)
    return None if found is None else found[1]
