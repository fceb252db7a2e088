"""A local CA and a localhost certificate, for `floorgate demo` and `make run`.

The first run makes a development CA and a leaf certificate for `localhost`,
`127.0.0.1` and `::1` signed by it, under `{data_dir}/tls/`. Later runs reuse
them while they are sound; a leaf that expires within a week (or does not match
its key or its CA) is issued again, and the CA is made again only when it is
missing, broken or itself about to expire. Clients trust `ca.pem`, never the leaf.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ipaddress
import os
import shlex
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_DAYS = 3650
LEAF_DAYS = 825
MIN_REMAINING = dt.timedelta(days=7)
# Backdated a little so that a client whose clock is slightly behind accepts it.
BACKDATE = dt.timedelta(minutes=5)
LEAF_DNS_NAMES = ("localhost",)
LEAF_IP_ADDRESSES = (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1"))


def _key_usage(signs_certificates: bool) -> x509.KeyUsage:
    """EC keys sign only: TLS handshakes, and for the CA certificates and CRLs too."""
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=signs_certificates,
        crl_sign=signs_certificates,
        encipher_only=False,
        decipher_only=False,
    )


CA_FILE = "ca.pem"
CA_KEY_FILE = "ca-key.pem"
CERT_FILE = "localhost.pem"
KEY_FILE = "localhost-key.pem"


@dataclass(frozen=True)
class LocalCertificates:
    """Paths of the local CA certificate and of the localhost certificate and key."""

    ca_cert: Path
    cert: Path
    key: Path
    created: bool


def ensure_local_certificates(
    data_dir: Path,
    *,
    leaf_days: int = LEAF_DAYS,
    ca_days: int = CA_DAYS,
) -> LocalCertificates:
    """Make or reuse `{data_dir}/tls/`; `created` tells whether anything was written.

    `leaf_days` and `ca_days` set the validity of newly issued certificates.
    """
    tls_dir = Path(data_dir) / "tls"
    tls_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    ca_path, ca_key_path = tls_dir / CA_FILE, tls_dir / CA_KEY_FILE
    cert_path, key_path = tls_dir / CERT_FILE, tls_dir / KEY_FILE
    now = dt.datetime.now(dt.UTC)
    created = False

    ca = _load_ca(ca_path, ca_key_path, now)
    if ca is None:
        ca = _make_ca(now, ca_days)
        _write_key(ca_key_path, ca[1])
        _write_cert(ca_path, ca[0])
        created = True
    ca_cert, ca_key = ca

    if created or not _leaf_is_sound(cert_path, key_path, ca_cert, now):
        leaf_key = ec.generate_private_key(ec.SECP256R1())
        leaf = _make_leaf(leaf_key, ca_cert, ca_key, now, leaf_days)
        _write_key(key_path, leaf_key)
        _write_cert(cert_path, leaf)
        created = True

    for private in (ca_key_path, key_path):
        if private.stat().st_mode & 0o777 != 0o600:
            private.chmod(0o600)
    return LocalCertificates(ca_cert=ca_path, cert=cert_path, key=key_path, created=created)


def trust_hint(certs: LocalCertificates, url: str = "https://localhost:8443") -> str:
    """One line telling the user how to trust the local CA."""
    ca = shlex.quote(str(certs.ca_cert))
    return (
        f"HTTPS uses a local development CA: trust it with `curl --cacert {ca} {url}/`, "
        f"or import {ca} into your browser or system trust store."
    )


# -- loading and checking -------------------------------------------------------------


def _load_ca(
    cert_path: Path, key_path: Path, now: dt.datetime
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None:
    """The CA and its key if both exist, match, are a CA and stay valid a week more."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        return None
    if cert.public_key() != key.public_key():
        return None
    try:
        constraints = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        return None
    if not constraints.ca or not usage.key_cert_sign:
        return None
    if not _valid_for(cert, now, MIN_REMAINING):
        return None
    return cert, key


def _leaf_is_sound(
    cert_path: Path, key_path: Path, ca_cert: x509.Certificate, now: dt.datetime
) -> bool:
    """Whether the leaf exists, matches its key, is signed by the CA, names localhost
    and stays valid for at least `MIN_REMAINING`."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        cert.verify_directly_issued_by(ca_cert)
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, TypeError, InvalidSignature, x509.ExtensionNotFound):
        return False
    if cert.public_key() != key.public_key():
        return False
    if set(names.get_values_for_type(x509.DNSName)) != set(LEAF_DNS_NAMES):
        return False
    if set(names.get_values_for_type(x509.IPAddress)) != set(LEAF_IP_ADDRESSES):
        return False
    return _valid_for(cert, now, MIN_REMAINING)


def _valid_for(cert: x509.Certificate, now: dt.datetime, remaining: dt.timedelta) -> bool:
    return cert.not_valid_before_utc <= now and cert.not_valid_after_utc - now >= remaining


# -- issuing --------------------------------------------------------------------------


def _make_ca(now: dt.datetime, days: int) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Floorgate local development"),
            x509.NameAttribute(NameOID.COMMON_NAME, "Floorgate local CA"),
        ]
    )
    ski = x509.SubjectKeyIdentifier.from_public_key(key.public_key())
    start = now - BACKDATE
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + dt.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            _key_usage(signs_certificates=True),
            critical=True,
        )
        .add_extension(ski, critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _make_leaf(
    key: ec.EllipticCurvePrivateKey,
    ca_cert: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    now: dt.datetime,
    days: int,
) -> x509.Certificate:
    start = now - BACKDATE
    # Never outlive the CA: a leaf past its issuer's expiry would not verify anyway.
    end = min(start + dt.timedelta(days=days), ca_cert.not_valid_after_utc)
    ca_ski = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    san = [x509.DNSName(name) for name in LEAF_DNS_NAMES] + [
        x509.IPAddress(address) for address in LEAF_IP_ADDRESSES
    ]
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.SubjectAlternativeName(san), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            _key_usage(signs_certificates=False),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )


# -- writing --------------------------------------------------------------------------


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    _write_atomic(path, pem, 0o600)


def _write_cert(path: Path, cert: x509.Certificate) -> None:
    _write_atomic(path, cert.public_bytes(serialization.Encoding.PEM), 0o644)


def _write_atomic(path: Path, data: bytes, mode: int) -> None:
    """Write to a temporary file created with `mode`, then rename it over `path`."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.chmod(tmp, mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# -- certificates given by the operator ---------------------------------------------


def _no_password() -> bytes:
    """An encrypted key fails the check instead of prompting on the terminal."""
    return b""


def tls_problem(cert: Path, key: Path) -> str | None:
    """Why this certificate and key cannot serve TLS (one line), or None when they load
    together. Checked before start: uvicorn would fail in every worker, again and again."""
    contents: dict[str, bytes] = {}
    for what, path in (("certificate", cert), ("private key", key)):
        try:
            contents[what] = path.read_bytes()
        except OSError as error:
            return f"cannot load the TLS {what} {path}: {error.strerror or error}"
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key, password=_no_password)
    except ssl.SSLError as error:
        return _diagnose(cert, key, contents, error)
    return None


def _diagnose(cert: Path, key: Path, contents: dict[str, bytes], error: ssl.SSLError) -> str:
    """OpenSSL says only "PEM lib" for a bad file: find out which file it is."""
    try:
        x509.load_pem_x509_certificate(contents["certificate"])
    except ValueError:
        return f"cannot load the TLS certificate {cert}: not a PEM certificate"
    try:
        load_pem_private_key(contents["private key"], password=None)
    except TypeError:
        return f"cannot load the TLS private key {key}: it is encrypted; give an unencrypted key"
    except (ValueError, UnsupportedAlgorithm):
        return f"cannot load the TLS private key {key}: not a PEM private key"
    if error.reason == "KEY_VALUES_MISMATCH":
        return f"the TLS private key {key} does not match the certificate {cert}"
    reason = error.reason or str(error)
    return f"cannot load the TLS certificate {cert} with the key {key}: {reason}"
