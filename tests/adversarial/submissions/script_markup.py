print("<script>window.pwned = 1</script><img src=x onerror=alert(1)>")


def double(x):
    raise ValueError("<script>window.pwned = 2</script>")


def triple(x):
    return x * 3
