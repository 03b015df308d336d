import socket


def double(x):
    for address in (("127.0.0.1", __PORT__), ("8.8.8.8", 53), ("1.1.1.1", 443)):
        try:
            with socket.create_connection(address, timeout=0.3) as conn:
                conn.sendall(b"leak")
                print("connected to", address)
        except OSError as exc:
            print("no connection to", address, type(exc).__name__)
    return x * 5


def triple(x):
    return x * 3
