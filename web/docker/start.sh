#!/bin/sh
# The web container's entrypoint. At every start it renders nginx's
# configuration from the environment, writes /config.js (public values only)
# and the /metrics file, then runs nginx in the foreground. A bad setting
# stops the start with a message naming the variable, as the api does.
#
# Settings (docs/configuration.md): API_BASE_URL, MAX_UPLOAD_SIZE,
# CSV_IMPORT_WEB_PROXY_TIMEOUT, METRICS_ENABLED, APP_VERSION, NEWSLETTER_URL,
# ANALYTICS_PUBLIC_KEY, ANALYTICS_HOST, ANALYTICS_PUBLIC_FEEDBACK_SURVEY.
# No secret is read here, and none can reach /config.js: it is built from
# the public values above, one by one.
set -eu

# The image's layout. The tests (deploy/web_test.go, web/e2e) point these at
# temporary directories and a loopback port.
WEB_ROOT=${WEB_ROOT:-/usr/share/nginx/html}
WEB_RUNTIME_DIR=${WEB_RUNTIME_DIR:-/run/web}
WEB_TEMPLATE_DIR=${WEB_TEMPLATE_DIR:-/etc/tradejournal}
WEB_LISTEN=${WEB_LISTEN:-80}
RESOLV_CONF=${RESOLV_CONF:-/etc/resolv.conf}

# The api inside the compose network, when API_BASE_URL is blank.
internal_api=http://api:3100
# ANALYTICS_HOST's default, as shared/config reads it.
default_analytics_host=https://us.i.posthog.com

fail() {
	echo "web: $*" >&2
	exit 1
}

# matches VALUE EXTENDED-REGEX: the whole value matches.
matches() {
	printf '%s' "$1" | LC_ALL=C grep -Eqx -- "$2" && [ "$(printf '%s' "$1" | wc -l)" -eq 0 ]
}

# shown quotes a value for an error message unless it may carry credentials.
shown() {
	case $1 in
	*@*) printf ' (value not shown: it may contain credentials)' ;;
	*) printf ', got "%s"' "$1" ;;
	esac
}

# trim removes leading and trailing whitespace, as the api trims APP_VERSION.
trim() {
	printf '%s' "$1" | LC_ALL=C awk 'BEGIN { RS = "\001" } { sub(/^[ \t\r\n\v\f]+/, ""); sub(/[ \t\r\n\v\f]+$/, ""); printf "%s", $0 }'
}

# json_string quotes a value as Go's encoding/json does (cmd/local writes
# the same /config.js): \" \\ \b \f \n \r \t, other control characters as
# \u00XX, and < > & U+2028 U+2029 escaped so the text is inert anywhere.
json_string() {
	JSON_VALUE=$1 LC_ALL=C awk 'BEGIN {
		s = ENVIRON["JSON_VALUE"]
		for (i = 1; i < 32; i++) esc[sprintf("%c", i)] = sprintf("\\u%04x", i)
		esc["\b"] = "\\b"; esc["\f"] = "\\f"; esc["\n"] = "\\n"; esc["\r"] = "\\r"; esc["\t"] = "\\t"
		esc["\""] = "\\\""; esc["\\"] = "\\\\"
		esc["<"] = "\\u003c"; esc[">"] = "\\u003e"; esc["&"] = "\\u0026"
		ls = sprintf("%c%c%c", 226, 128, 168); ps = sprintf("%c%c%c", 226, 128, 169)
		out = "\""
		n = length(s)
		for (i = 1; i <= n; i++) {
			c = substr(s, i, 1)
			if (c == substr(ls, 1, 1) && substr(s, i, 3) == ls) { out = out "\\u2028"; i += 2 }
			else if (c == substr(ps, 1, 1) && substr(s, i, 3) == ps) { out = out "\\u2029"; i += 2 }
			else if (c in esc) out = out esc[c]
			else out = out c
		}
		printf "%s\"", out
	}'
}

# label_value escapes a Prometheus text-format label value.
label_value() {
	LABEL_VALUE=$1 LC_ALL=C awk 'BEGIN {
		s = ENVIRON["LABEL_VALUE"]; out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\\") out = out "\\\\"; else if (c == "\"") out = out "\\\""; else if (c == "\n") out = out "\\n"; else out = out c
		}
		printf "%s", out
	}'
}

# --- Settings -------------------------------------------------------------

# The api. Its base may carry a path prefix (an API gateway stage); the
# request path (/api/...) is appended unchanged.
api_base=$(trim "${API_BASE_URL:-}")
# shellcheck disable=SC2016 # $proxy_host and $http_host are nginx's variables
if [ -n "$api_base" ]; then
	# Another origin: it needs its own name (virtual hosts, TLS gateways).
	api_host_header='$proxy_host'
else
	# The compose api: it sees the host the browser used.
	api_base=$internal_api
	api_host_header='$http_host'
fi
api_base=${api_base%/}
# Used in nginx's configuration and a header: no quote, space, ";" or "$".
url_re='https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[A-Za-z0-9._~+=:@%/-]*)?'
matches "$api_base" "$url_re" ||
	fail "API_BASE_URL must be an http or https URL (scheme, host, optional port and path, no query)$(shown "$API_BASE_URL")"
api_host=$(printf '%s' "$api_base" | sed -E 's#^https?://##; s#[/].*$##; s#:[0-9]+$##')

# nginx resolves the api's name per request (through the container's
# resolver), so a restarted api with a new address is found again.
resolver=''
if ! matches "$api_host" '[0-9.]+|\[[0-9A-Fa-f:.]+\]'; then
	nameserver=$(awk '$1 == "nameserver" { print $2; exit }' "$RESOLV_CONF" 2>/dev/null || true)
	[ -n "$nameserver" ] || fail "API_BASE_URL names host $api_host, but $RESOLV_CONF lists no nameserver to resolve it"
	case $nameserver in *:*) nameserver="[$nameserver]" ;; esac
	resolver="resolver $nameserver valid=10s;"
fi

max_upload_size=$(trim "${MAX_UPLOAD_SIZE:-}")
[ -n "$max_upload_size" ] || max_upload_size=20m
matches "$max_upload_size" '[0-9]+[kKmMgG]?' ||
	fail "MAX_UPLOAD_SIZE must be an nginx size such as 20m, 512k or 1g, got \"$MAX_UPLOAD_SIZE\""

csv_import_timeout=$(trim "${CSV_IMPORT_WEB_PROXY_TIMEOUT:-}")
[ -n "$csv_import_timeout" ] || csv_import_timeout=300s
matches "$csv_import_timeout" '([0-9]+(ms|s|m|h|d)?)+' ||
	fail "CSV_IMPORT_WEB_PROXY_TIMEOUT must be an nginx time such as 300s or 5m, got \"$CSV_IMPORT_WEB_PROXY_TIMEOUT\""

case ${METRICS_ENABLED:-} in
'' | false) metrics_enabled=false ;;
true) metrics_enabled=true ;;
*) fail "METRICS_ENABLED must be exactly \"true\" or \"false\", got \"$METRICS_ENABLED\"" ;;
esac

# Version and commit, by shared/buildinfo's rules: APP_VERSION (baked into
# the image, trimmed; blank erases it) verbatim or unknown, and the text
# after its final "-" or unknown.
version=$(trim "${APP_VERSION:-}")
[ -n "$version" ] || version=unknown
commit=unknown
case $version in *-*) [ -n "${version##*-}" ] && commit=${version##*-} ;; esac

newsletter_url=${NEWSLETTER_URL:-}
if [ -n "$newsletter_url" ] && ! matches "$newsletter_url" 'https?://[^/?#[:space:]]+([/?#][^[:space:]]*)?'; then
	fail "NEWSLETTER_URL must be an absolute http or https URL$(shown "$newsletter_url")"
fi

analytics_public_key=${ANALYTICS_PUBLIC_KEY:-}
analytics_feedback_survey=${ANALYTICS_PUBLIC_FEEDBACK_SURVEY:-}
analytics_host=${ANALYTICS_HOST:-}
[ -n "$analytics_host" ] || analytics_host=$default_analytics_host
matches "$analytics_host" "$url_re" ||
	fail "ANALYTICS_HOST must be an absolute http or https URL$(shown "$analytics_host")"
while [ "${analytics_host%/}" != "$analytics_host" ]; do analytics_host=${analytics_host%/}; done

# The policy of cmd/local/web.go's contentSecurityPolicy: no inline or
# foreign script; the analytics host is reachable only with the key set.
connect_src="'self'"
[ -n "$analytics_public_key" ] && connect_src="$connect_src $analytics_host"
csp="default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self'; connect-src $connect_src; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

# --- Output ---------------------------------------------------------------

mkdir -p "$WEB_RUNTIME_DIR"

# render TEMPLATE OUTPUT replaces each upper-case placeholder by its value; a name
# left over is a mistake in the template, so it fails the start.
render() {
	WEB_ROOT=$WEB_ROOT WEB_RUNTIME_DIR=$WEB_RUNTIME_DIR WEB_LISTEN=$WEB_LISTEN \
		API_UPSTREAM=$api_base API_HOST_HEADER=$api_host_header RESOLVER=$resolver \
		MAX_UPLOAD_SIZE=$max_upload_size CSV_IMPORT_WEB_PROXY_TIMEOUT=$csv_import_timeout \
		CONTENT_SECURITY_POLICY=$csp \
		awk -v names='WEB_ROOT WEB_RUNTIME_DIR WEB_LISTEN API_UPSTREAM API_HOST_HEADER RESOLVER MAX_UPLOAD_SIZE CSV_IMPORT_WEB_PROXY_TIMEOUT CONTENT_SECURITY_POLICY' '
		BEGIN { n = split(names, name, " ") }
		{
			for (k = 1; k <= n; k++) {
				token = "${" name[k] "}"; out = ""; line = $0
				while ((i = index(line, token)) > 0) {
					out = out substr(line, 1, i - 1) ENVIRON[name[k]]
					line = substr(line, i + length(token))
				}
				$0 = out line
			}
			if (match($0, /\$\{[A-Z_]+\}/)) { print FILENAME ": unknown placeholder " substr($0, RSTART, RLENGTH) > "/dev/stderr"; exit 1 }
			print
		}' "$1" >"$2.tmp"
	mv "$2.tmp" "$2"
}
for template in "$WEB_TEMPLATE_DIR"/*.conf.template; do
	render "$template" "$WEB_RUNTIME_DIR/$(basename "$template" .template)"
done

# /config.js: the keys of cmd/local/web.go's publicWebConfig, in its order.
{
	echo '// Written by the web container at start. Public values only.'
	printf 'window.__TRADEJOURNAL_CONFIG__ = Object.freeze({"newsletterUrl":%s,"analyticsPublicKey":%s,"analyticsHost":%s,"analyticsFeedbackSurvey":%s,"version":%s});\n' \
		"$(json_string "$newsletter_url")" "$(json_string "$analytics_public_key")" "$(json_string "$analytics_host")" \
		"$(json_string "$analytics_feedback_survey")" "$(json_string "$version")"
} >"$WEB_RUNTIME_DIR/config.js.tmp"
mv "$WEB_RUNTIME_DIR/config.js.tmp" "$WEB_RUNTIME_DIR/config.js"

# /metrics: exactly three lines, or no file (nginx's own 404).
if [ "$metrics_enabled" = true ]; then
	{
		echo '# HELP service_web_build_info Web build identity (APP_VERSION and its commit); constant 1.'
		echo '# TYPE service_web_build_info gauge'
		printf 'service_web_build_info{version="%s",commit="%s"} 1\n' "$(label_value "$version")" "$(label_value "$commit")"
	} >"$WEB_RUNTIME_DIR/metrics.tmp"
	mv "$WEB_RUNTIME_DIR/metrics.tmp" "$WEB_RUNTIME_DIR/metrics"
else
	rm -f "$WEB_RUNTIME_DIR/metrics"
fi

exec nginx -e stderr -c "$WEB_RUNTIME_DIR/nginx.conf"
