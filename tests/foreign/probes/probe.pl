# One GET per argument ("name=url") with HTTP::Tiny (Perl core), each failure printed the way Perl servers report it:
# "tiny/<name>" is "$status $reason: $content". HTTP::Tiny raises nothing: a failure is a response, and one it made up
# itself (no connection, a timeout, TLS refused) is status 599 "Internal Exception" with the exception's text as its
# content. One JSON object on stdout. argv: timeout_ms name=url ...
# The timeout is the client's own (timeout => s); certificates are verified (verify_SSL, HTTP::Tiny's default since
# 0.083; perl 5.36 ships 0.080, whose default does not verify). https needs IO::Socket::SSL (Debian:
# libio-socket-ssl-perl), which .ci/run installs.
use strict;
use warnings;
use HTTP::Tiny;
use JSON::PP;

my ($ms, @pairs) = @ARGV;
my $http = HTTP::Tiny->new(timeout => $ms / 1000, verify_SSL => 1);
my %out;
for my $pair (@pairs) {
    my ($name, $url) = split /=/, $pair, 2;
    my $res = $http->get($url);
    $out{"tiny/$name"} = $res->{success} ? undef : "$res->{status} $res->{reason}: $res->{content}";
}
print JSON::PP->new->canonical->encode(\%out), "\n";
