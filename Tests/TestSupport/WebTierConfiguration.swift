import Foundation

// The configuration files of the tier's servers: krb5.conf, kdc.conf, nginx.conf, httpd.conf.
extension WebTier {

    static func krb5Conf(realm: String, kdcPort: Int, directory: String) -> String {
        """
        [libdefaults]
            default_realm = \(realm)
            dns_lookup_kdc = false
            dns_lookup_realm = false
            dns_canonicalize_hostname = false
            rdns = false
            udp_preference_limit = 1
            default_ccache_name = FILE:\(directory)/ccache
            forwardable = false
            ticket_lifetime = 10h

        [realms]
            \(realm) = {
                kdc = 127.0.0.1:\(kdcPort)
            }

        [domain_realm]
            localhost = \(realm)
            .localhost = \(realm)

        """
    }

    static func kdcConf(realm: String, kdcPort: Int, directory: String) -> String {
        """
        [kdcdefaults]
            kdc_listen = 127.0.0.1:\(kdcPort)
            kdc_tcp_listen = 127.0.0.1:\(kdcPort)

        [realms]
            \(realm) = {
                database_name = \(directory)/principal
                key_stash_file = \(directory)/stash
                acl_file = \(directory)/kadm5.acl
                max_life = 10h
                max_renewable_life = 0
                supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
            }

        [logging]
            kdc = FILE:\(directory)/kdc.log
            admin_server = FILE:\(directory)/kadmin.log
            default = FILE:\(directory)/krb5lib.log

        """
    }

    static func nginxConf(
        directory dir: String, pki: TestPKI,
        ports p: WebTierPorts,
        isRoot: Bool, basicRealm: String
    ) -> String {
        func block(_ name: String, port: Int, tls: (certificate: String, key: String)?, extra: String = "") -> String {
            var lines = [
                "    server {",
                "        listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl");",
                "        server_name localhost 127.0.0.1;",
                "        root \(dir)/www/\(name);",
            ]
            if let tls {
                lines += ["        ssl_certificate \(tls.certificate);", "        ssl_certificate_key \(tls.key);"]
            }
            lines += extra.split(separator: "\n").map { "        " + $0 }
            lines += ["        location / { try_files $uri =404; }", "    }", ""]
            return lines.joined(separator: "\n")
        }
        let caSigned = (certificate: pki.serverCertificatePath, key: pki.serverKeyPath)
        let basic = "auth_basic \"\(basicRealm)\";\nauth_basic_user_file \(dir)/nginx/htpasswd;"
        let blocks = [
            block("self-signed", port: p.selfSigned, tls: (pki.selfSignedCertificatePath, pki.selfSignedKeyPath)),
            block("rotating", port: p.rotating, tls: ("\(dir)/nginx/rotating.pem", "\(dir)/nginx/rotating.key")),
            block(
                "client-certificate", port: p.clientCertificate, tls: caSigned,
                extra: "ssl_client_certificate \(pki.caCertificatePath);\nssl_verify_client on;\nssl_verify_depth 2;"),
            block("basic", port: p.basic, tls: caSigned, extra: basic),
            block("basic-plain", port: p.basicPlain, tls: nil, extra: basic),
        ].joined(separator: "\n")
        return """
            daemon off;
            master_process on;
            worker_processes 1;
            \(isRoot ? "user nobody nogroup;" : "")
            pid \(dir)/nginx/nginx.pid;
            error_log \(dir)/nginx/error.log info;
            events { worker_connections 256; }
            http {
                access_log \(dir)/nginx/access.log;
                client_body_temp_path \(dir)/nginx/tmp/body;
                proxy_temp_path \(dir)/nginx/tmp/proxy;
                fastcgi_temp_path \(dir)/nginx/tmp/fastcgi;
                uwsgi_temp_path \(dir)/nginx/tmp/uwsgi;
                scgi_temp_path \(dir)/nginx/tmp/scgi;
                types { application/json json; }
                default_type application/json;
                ssl_protocols TLSv1.2 TLSv1.3;
                keepalive_timeout 5;

            \(blocks)
                include \(dir)/nginx/proxies.conf;
            }

            """
    }

    static func apacheConf(
        directory dir: String, pki: TestPKI, digestPort: Int, negotiatePort: Int, isRoot: Bool,
        digestRealm: String, htdigest: String, keytab: String
    ) -> String {
        let modules = "/usr/lib/apache2/modules"
        let load = [
            "mpm_event", "authn_core", "authn_file", "authz_core", "authz_user", "auth_digest", "auth_gssapi", "ssl",
        ]
        .map { "LoadModule \($0)_module \(modules)/mod_\($0).so" }.joined(separator: "\n")
        return """
            ServerRoot "\(dir)/apache"
            ServerName localhost
            \(load)
            \(isRoot ? "User nobody\nGroup nogroup" : "")
            PidFile \(dir)/apache/httpd.pid
            DefaultRuntimeDir \(dir)/apache/run
            ErrorLog \(dir)/apache/error.log
            LogLevel info
            StartServers 1
            ServerLimit 1
            ThreadsPerChild 16
            MaxRequestWorkers 16
            MinSpareThreads 1
            MaxSpareThreads 16
            KeepAliveTimeout 5
            SSLProtocol -all +TLSv1.2 +TLSv1.3
            SSLSessionCache none
            Listen 127.0.0.1:\(digestPort)
            Listen 127.0.0.1:\(negotiatePort)

            <Directory />
                AllowOverride None
            </Directory>

            <VirtualHost 127.0.0.1:\(digestPort)>
                ServerName localhost
                SSLEngine on
                SSLCertificateFile \(pki.serverCertificatePath)
                SSLCertificateKeyFile \(pki.serverKeyPath)
                DocumentRoot \(dir)/www/digest
                <Location />
                    ForceType application/json
                    AuthType Digest
                    AuthName "\(digestRealm)"
                    AuthDigestDomain /
                    AuthDigestProvider file
                    AuthUserFile \(htdigest)
                    Require valid-user
                </Location>
            </VirtualHost>

            <VirtualHost 127.0.0.1:\(negotiatePort)>
                ServerName localhost
                SSLEngine on
                SSLCertificateFile \(pki.serverCertificatePath)
                SSLCertificateKeyFile \(pki.serverKeyPath)
                DocumentRoot \(dir)/www/negotiate
                <Location />
                    ForceType application/json
                    AuthType GSSAPI
                    AuthName "portal-auth negotiate"
                    GssapiCredStore keytab:\(keytab)
                    GssapiAllowedMech krb5
                    GssapiBasicAuth Off
                    GssapiNegotiateOnce On
                    Require valid-user
                </Location>
            </VirtualHost>

            """
    }
}
