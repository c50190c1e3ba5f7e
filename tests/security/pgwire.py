"""A minimal PostgreSQL v3 wire-protocol client (trust or SCRAM-SHA-256) for tests/security.

psql 15 cannot send Bind and Execute as separate steps with other statements in between; the
parallel test needs exactly that (a portal is started, i.e. ExecutorStart runs, at Bind; it is
executed, and its parallel workers are launched, at Execute).  Originally written for an attack
review of the privacy parameters."""
import base64, hashlib, hmac, os, socket, struct


class PGError(Exception):
    pass


class Conn:
    def __init__(self, host, port, user, database, password=None, timeout=60):
        if host.startswith('/'):
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.s.connect(os.path.join(host, '.s.PGSQL.%d' % port))
        else:
            self.s = socket.create_connection((host, port), timeout=timeout)
        self.s.settimeout(timeout)
        self.buf = b''
        body = struct.pack('!I', 196608)
        for k, v in (('user', user), ('database', database)):
            body += k.encode() + b'\0' + v.encode() + b'\0'
        body += b'\0'
        self.s.sendall(struct.pack('!I', len(body) + 4) + body)
        while True:
            t, m = self.read()
            if t == 'R':
                code = struct.unpack('!I', m[:4])[0]
                if code == 0:
                    continue
                if code == 10:
                    self._scram(m[4:], password)
                    continue
                raise PGError('authentication method %d not supported' % code)
            if t == 'E':
                raise PGError(self.fields(m))
            if t == 'Z':
                return

    def _scram(self, mechs, password):
        if b'SCRAM-SHA-256' not in mechs.split(b'\0') or password is None:
            raise PGError('server wants SASL %r; need SCRAM-SHA-256 and a password' % mechs)
        nonce = base64.b64encode(os.urandom(18)).decode()
        first_bare = 'n=,r=' + nonce
        first = ('n,,' + first_bare).encode()
        self.send('p', b'SCRAM-SHA-256\0' + struct.pack('!i', len(first)) + first)
        t, m = self.read()
        if t == 'E':
            raise PGError(self.fields(m))
        server_first = m[4:].decode()
        attrs = dict(kv.split('=', 1) for kv in server_first.split(','))
        salted = hashlib.pbkdf2_hmac('sha256', password.encode(), base64.b64decode(attrs['s']),
                                     int(attrs['i']))
        client_key = hmac.new(salted, b'Client Key', hashlib.sha256).digest()
        stored = hashlib.sha256(client_key).digest()
        final_wo_proof = 'c=biws,r=' + attrs['r']
        auth_msg = (first_bare + ',' + server_first + ',' + final_wo_proof).encode()
        sig = hmac.new(stored, auth_msg, hashlib.sha256).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        self.send('p', (final_wo_proof + ',p=' + base64.b64encode(proof).decode()).encode())
        t, m = self.read()
        if t == 'E':
            raise PGError(self.fields(m))

    def read(self):
        while len(self.buf) < 5:
            d = self.s.recv(65536)
            if not d:
                raise PGError('connection closed')
            self.buf += d
        t = chr(self.buf[0])
        n = struct.unpack('!I', self.buf[1:5])[0]
        while len(self.buf) < 1 + n:
            d = self.s.recv(65536)
            if not d:
                raise PGError('connection closed')
            self.buf += d
        m = self.buf[5:1 + n]
        self.buf = self.buf[1 + n:]
        return t, m

    @staticmethod
    def fields(m):
        out = {}
        for part in m.split(b'\0'):
            if part:
                out[chr(part[0])] = part[1:].decode()
        return '%s %s: %s' % (out.get('S', ''), out.get('C', ''), out.get('M', ''))

    def send(self, t, body=b''):
        self.s.sendall(t.encode() + struct.pack('!I', len(body) + 4) + body)

    def parse(self, name, sql, types=()):
        b = name.encode() + b'\0' + sql.encode() + b'\0' + struct.pack('!H', len(types))
        for o in types:
            b += struct.pack('!I', o)
        self.send('P', b)

    def bind(self, portal, stmt, params=()):
        b = portal.encode() + b'\0' + stmt.encode() + b'\0' + struct.pack('!H', 0)
        b += struct.pack('!H', len(params))
        for p in params:
            if p is None:
                b += struct.pack('!i', -1)
            else:
                pb = p.encode()
                b += struct.pack('!i', len(pb)) + pb
        b += struct.pack('!H', 0)
        self.send('B', b)

    def execute(self, portal, maxrows=0):
        self.send('E', portal.encode() + b'\0' + struct.pack('!I', maxrows))

    def sync(self):
        self.send('S')

    def collect(self):
        """Messages up to ReadyForQuery: [('row', [...]), ('done', tag), ('error', text), ...]."""
        ev = []
        while True:
            t, m = self.read()
            if t == 'D':
                n = struct.unpack('!H', m[:2])[0]
                off, row = 2, []
                for _ in range(n):
                    ln = struct.unpack('!i', m[off:off + 4])[0]
                    off += 4
                    if ln < 0:
                        row.append(None)
                    else:
                        row.append(m[off:off + ln].decode())
                        off += ln
                ev.append(('row', row))
            elif t == 'C':
                ev.append(('done', m.rstrip(b'\0').decode()))
            elif t == 'E':
                ev.append(('error', self.fields(m)))
            elif t == 'Z':
                return ev

    def function_call(self, fn_oid, args=()):
        """The protocol's fast-path function call (libpq's PQfn): text arguments and result."""
        b = struct.pack('!IH', fn_oid, 0) + struct.pack('!H', len(args))
        for a in args:
            ab = a.encode()
            b += struct.pack('!i', len(ab)) + ab
        b += struct.pack('!H', 0)
        self.send('F', b)
        out = None
        while True:
            t, m = self.read()
            if t == 'V':
                ln = struct.unpack('!i', m[:4])[0]
                out = ('result', None if ln < 0 else m[4:4 + ln].decode())
            elif t == 'E':
                out = ('error', self.fields(m))
            elif t == 'Z':
                return out

    def simple(self, sql):
        self.send('Q', sql.encode() + b'\0')
        return self.collect()

    def scalar(self, sql):
        for kind, v in self.simple(sql):
            if kind == 'row':
                return v[0]
            if kind == 'error':
                raise PGError(v)
        return None

    def close(self):
        try:
            self.send('X')
        finally:
            self.s.close()
