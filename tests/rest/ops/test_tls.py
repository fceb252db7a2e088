"""The local CA and localhost certificate: made once, reused, renewed, trusted by real TLS."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import ssl
import threading
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from cryptography.x509.verification import PolicyBuilder, Store

from rest.ops.tls import LocalCertificates, ensure_local_certificates, trust_hint

FILES = ("ca-key.pem", "ca.pem", "localhost-key.pem", "localhost.pem")


def _read_all(tls_dir: Path) -> dict[str, bytes]:
    return {name: (tls_dir / name).read_bytes() for name in FILES}


def _load(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def _handshake(certs: LocalCertificates, server_hostname: str) -> bytes:
    """Serve one TLS connection with the leaf; connect trusting only ca.pem."""
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(certs.cert, certs.key)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    errors: list[BaseException] = []

    def serve() -> None:
        try:
            conn, _ = listener.accept()
            with server_ctx.wrap_socket(conn, server_side=True) as tls:
                tls.sendall(b"hello over tls")
        except (OSError, ssl.SSLError) as exc:  # the client may reject us
            errors.append(exc)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        client_ctx = ssl.create_default_context(cafile=str(certs.ca_cert))
        with (
            socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
            client_ctx.wrap_socket(raw, server_hostname=server_hostname) as tls,
        ):
            return tls.recv(100)
    finally:
        thread.join(timeout=5)
        listener.close()


def test_created_then_reused(tmp_path: Path) -> None:
    first = ensure_local_certificates(tmp_path)
    tls_dir = tmp_path / "tls"
    assert first == LocalCertificates(
        ca_cert=tls_dir / "ca.pem",
        cert=tls_dir / "localhost.pem",
        key=tls_dir / "localhost-key.pem",
        created=True,
    )
    assert sorted(p.name for p in tls_dir.iterdir()) == list(FILES)
    before = _read_all(tls_dir)

    second = ensure_local_certificates(tmp_path)
    assert second == LocalCertificates(
        ca_cert=tls_dir / "ca.pem",
        cert=tls_dir / "localhost.pem",
        key=tls_dir / "localhost-key.pem",
        created=False,
    )
    assert _read_all(tls_dir) == before


def test_private_keys_are_mode_0600(tmp_path: Path) -> None:
    certs = ensure_local_certificates(tmp_path)
    tls_dir = tmp_path / "tls"
    assert (tls_dir / "ca-key.pem").stat().st_mode & 0o777 == 0o600
    assert certs.key.stat().st_mode & 0o777 == 0o600
    assert certs.cert.stat().st_mode & 0o777 == 0o644
    assert certs.ca_cert.stat().st_mode & 0o777 == 0o644

    # A loosened key file is tightened again on reuse, without new certificates.
    certs.key.chmod(0o644)
    again = ensure_local_certificates(tmp_path)
    assert again.created is False
    assert certs.key.stat().st_mode & 0o777 == 0o600


def test_tls_handshake_trusts_only_the_local_ca(tmp_path: Path) -> None:
    certs = ensure_local_certificates(tmp_path)
    assert _handshake(certs, "localhost") == b"hello over tls"
    assert _handshake(certs, "127.0.0.1") == b"hello over tls"
    assert _handshake(certs, "::1") == b"hello over tls"  # IP SAN check; transport is IPv4
    with pytest.raises(ssl.SSLCertVerificationError) as info:
        _handshake(certs, "example.com")
    assert (
        info.value.verify_message
        == "Hostname mismatch, certificate is not valid for 'example.com'."
    )


def test_certificate_contents(tmp_path: Path) -> None:
    certs = ensure_local_certificates(tmp_path)
    ca = _load(certs.ca_cert)
    leaf = _load(certs.cert)

    chain = (
        PolicyBuilder()
        .store(Store([ca]))
        .build_server_verifier(x509.DNSName("localhost"))
        .verify(leaf, [])
    )
    assert chain == [leaf, ca]

    ca_constraints = ca.extensions.get_extension_for_class(x509.BasicConstraints)
    assert ca_constraints.critical is True
    assert ca_constraints.value == x509.BasicConstraints(ca=True, path_length=0)
    assert ca.extensions.get_extension_for_class(x509.KeyUsage).value.key_cert_sign is True
    assert ca.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "Floorgate local CA"
    assert ca.not_valid_after_utc - ca.not_valid_before_utc == dt.timedelta(days=3650)

    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["localhost"]
    assert san.get_values_for_type(x509.IPAddress) == [
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("::1"),
    ]
    eku = leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.SERVER_AUTH]
    assert leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    assert leaf.issuer == ca.subject
    assert leaf.not_valid_after_utc - leaf.not_valid_before_utc == dt.timedelta(days=825)
    now = dt.datetime.now(dt.UTC)
    assert leaf.not_valid_before_utc <= now

    for cert in (ca, leaf):
        key = cert.public_key()
        assert isinstance(key, ec.EllipticCurvePublicKey)
        assert key.curve.name == "secp256r1"


def test_expired_leaf_is_reissued_by_the_same_ca(tmp_path: Path) -> None:
    expired = ensure_local_certificates(tmp_path, leaf_days=0)
    assert expired.created is True
    tls_dir = tmp_path / "tls"
    old = _read_all(tls_dir)
    old_leaf = _load(expired.cert)
    assert old_leaf.not_valid_after_utc < dt.datetime.now(dt.UTC)

    renewed = ensure_local_certificates(tmp_path)
    assert renewed.created is True
    new = _read_all(tls_dir)
    assert new["ca.pem"] == old["ca.pem"]
    assert new["ca-key.pem"] == old["ca-key.pem"]
    assert new["localhost.pem"] != old["localhost.pem"]
    assert new["localhost-key.pem"] != old["localhost-key.pem"]
    leaf = _load(renewed.cert)
    assert leaf.not_valid_after_utc - leaf.not_valid_before_utc == dt.timedelta(days=825)
    assert _handshake(renewed, "localhost") == b"hello over tls"

    assert ensure_local_certificates(tmp_path).created is False


def test_leaf_expiring_within_a_week_is_reissued(tmp_path: Path) -> None:
    ensure_local_certificates(tmp_path, leaf_days=6)
    old_leaf = (tmp_path / "tls" / "localhost.pem").read_bytes()
    assert ensure_local_certificates(tmp_path, leaf_days=6).created is True
    renewed = ensure_local_certificates(tmp_path)
    assert renewed.created is True
    assert renewed.cert.read_bytes() != old_leaf
    # Eight days left is enough: kept.
    ensure_local_certificates(tmp_path / "other", leaf_days=8)
    assert ensure_local_certificates(tmp_path / "other").created is False


def test_missing_ca_replaces_ca_and_leaf(tmp_path: Path) -> None:
    certs = ensure_local_certificates(tmp_path)
    old = _read_all(tmp_path / "tls")
    certs.ca_cert.unlink()

    again = ensure_local_certificates(tmp_path)
    assert again.created is True
    new = _read_all(tmp_path / "tls")
    assert all(new[name] != old[name] for name in FILES)
    _load(again.cert).verify_directly_issued_by(_load(again.ca_cert))
    assert _handshake(again, "localhost") == b"hello over tls"


def test_corrupt_or_foreign_leaf_is_reissued(tmp_path: Path) -> None:
    certs = ensure_local_certificates(tmp_path)
    ca_before = certs.ca_cert.read_bytes()
    certs.cert.write_bytes(b"not a certificate\n")
    assert ensure_local_certificates(tmp_path).created is True
    assert _handshake(certs, "localhost") == b"hello over tls"

    # A leaf signed by some other CA (here: another data dir's) is not kept.
    other = ensure_local_certificates(tmp_path / "other")
    certs.cert.write_bytes(other.cert.read_bytes())
    certs.key.write_bytes(other.key.read_bytes())
    assert ensure_local_certificates(tmp_path).created is True
    assert certs.ca_cert.read_bytes() == ca_before
    _load(certs.cert).verify_directly_issued_by(_load(certs.ca_cert))


def test_trust_hint(tmp_path: Path) -> None:
    certs = ensure_local_certificates(tmp_path)
    ca = tmp_path / "tls" / "ca.pem"
    assert trust_hint(certs) == (
        f"HTTPS uses a local development CA: trust it with "
        f"`curl --cacert {ca} https://localhost:8443/`, "
        f"or import {ca} into your browser or system trust store."
    )
    assert trust_hint(certs, url="https://127.0.0.1:9443") == (
        f"HTTPS uses a local development CA: trust it with "
        f"`curl --cacert {ca} https://127.0.0.1:9443/`, "
        f"or import {ca} into your browser or system trust store."
    )
    assert "\n" not in trust_hint(certs)
