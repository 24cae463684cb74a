"""The organisations of bench/generate.py's cases: real ones that have published postmortems
first, then made-up ones in varied styles of name, English and Korean."""

from itertools import product

# --- Organisations ---------------------------------------------------------------------------

# (name, slug, domain): real organisations that have published postmortems.
REAL_ORGS = """
GitHub|github|github.com
Cloudflare|cloudflare|cloudflare.com
Amazon Web Services|aws|aws.amazon.com
Google Cloud|google-cloud|cloud.google.com
Microsoft Azure|azure|azure.microsoft.com
Fastly|fastly|fastly.com
Slack|slack|slack.com
GitLab|gitlab|gitlab.com
Atlassian|atlassian|atlassian.com
Roblox|roblox|roblox.com
Tarsnap|tarsnap|tarsnap.com
crates.io|crates-io|crates.io
npm|npm|npmjs.com
PyPI|pypi|pypi.org
TUI Airways|tui-airways|tui.co.uk
British Airways|british-airways|britishairways.com
Knight Capital Americas LLC|knight-capital|knight.com
CrowdStrike|crowdstrike|crowdstrike.com
Meta|meta|meta.com
Heroku|heroku|heroku.com
Discord|discord|discord.com
Reddit|reddit|reddit.com
Salesforce|salesforce|salesforce.com
Stripe|stripe|stripe.com
Travis CI|travis-ci|travis-ci.com
CircleCI|circleci|circleci.com
Joyent|joyent|joyent.com
OVHcloud|ovhcloud|ovhcloud.com
Kakao|kakao|kakaocorp.com
NAVER Cloud|naver-cloud|ncloud.com
Toss|toss|toss.im
Coupang|coupang|coupang.com
LINE|line|linecorp.com
SK Telecom|sk-telecom|sktelecom.com
KT|kt|kt.com
Lablup Inc|lablup-inc|lablup.com
Upstage|upstage|upstage.ai
Datadog|datadog|datadoghq.com
PagerDuty|pagerduty|pagerduty.com
Twilio|twilio|twilio.com
Zoom|zoom|zoom.us
Dropbox|dropbox|dropbox.com
Spotify|spotify|spotify.com
Netflix|netflix|netflix.com
Monzo|monzo|monzo.com
TSB Bank|tsb-bank|tsb.co.uk
Equinix|equinix|equinix.com
DigitalOcean|digitalocean|digitalocean.com
Hetzner|hetzner|hetzner.com
Vercel|vercel|vercel.com
Fly.io|fly-io|fly.io
Sentry|sentry|sentry.io
HashiCorp|hashicorp|hashicorp.com
Elastic|elastic|elastic.co
Confluent|confluent|confluent.io
Shopify|shopify|shopify.com
Booking.com|booking-com|booking.com
Southwest Airlines|southwest-airlines|southwest.com
Optus|optus|optus.com.au
Rogers Communications|rogers|rogers.com
NHS Digital|nhs-digital|digital.nhs.uk
PlayStation Network|playstation-network|playstation.com
Epic Games|epic-games|epicgames.com
Tokyo Stock Exchange|tokyo-stock-exchange|jpx.co.jp
Nasdaq|nasdaq|nasdaq.com
Visa Europe|visa-europe|visa.co.uk
Robinhood|robinhood|robinhood.com
Coinbase|coinbase|coinbase.com
Let's Encrypt|lets-encrypt|letsencrypt.org
Mozilla|mozilla|mozilla.org
Debian|debian|debian.org
Wikimedia Foundation|wikimedia|wikimediafoundation.org
Internet Archive|internet-archive|archive.org
Stack Overflow|stack-overflow|stackoverflow.com
Basecamp|basecamp|basecamp.com
Gandi|gandi|gandi.net
Dyn|dyn|dyn.com
Akamai|akamai|akamai.com
Starlink|starlink|starlink.com
카카오뱅크|kakaobank|kakaobank.com
당근|daangn|daangn.com
우아한형제들|woowa-brothers|woowahan.com
한국거래소|krx|krx.co.kr
국가정보자원관리원|nirs|nirs.go.kr
"""
ORG_PREFIXES = (
    "Blue North Iron Silver Quantum Pixel Bright Open Nimbus Harbor Atlas Vector Lumen Cedar "
    "Granite Orbit Maple Falcon Kite Zephyr Ember Aurora Echo Nova Polar Signal Summit Tidal "
    "Copper Willow"
).split()
ORG_MIDDLES = ["", "wave", "stone", "field", "line", "gate", "point", "bridge"]
ORG_SUFFIXES = (
    " Bank| Pay|Soft| Labs| Systems|.io| Health| Airways| Telecom| Cloud|DB| Games| Logistics"
    "| Energy| Insurance|Hub| Media| Rail| GmbH| Ltd| Inc| AG| Networks|ly"
).split("|")
KOREAN_ORG_HEADS = [
    tuple(pair.split(":"))
    for pair in "한빛:hanbit 새별:saebyeol 누리:nuri 다온:daon 가람:garam 바다:bada 하늘:haneul "
    "미르:mir".split()
]
KOREAN_ORG_TAILS = [
    tuple(pair.split(":"))
    for pair in "클라우드:cloud 은행:bank 페이:pay 증권:securities 텔레콤:telecom 게임즈:games "
    "물류:logistics 병원:hospital".split()
]


def slugify(name):
    out, dash = [], False
    for ch in name.lower():
        if "a" <= ch <= "z" or "0" <= ch <= "9":
            out.append(ch)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    return "".join(out).strip("-")


def made_up_orgs():
    """Made-up organisations in a fixed order, their names in varied styles."""
    styles = ["plain", "plain", "camel", "lower", "upper"]
    for index, (prefix, middle, suffix) in enumerate(
        product(ORG_PREFIXES, ORG_MIDDLES, ORG_SUFFIXES)
    ):
        stem = prefix + middle
        style = styles[index % len(styles)]
        if suffix == ".io" or style == "lower":
            name = (stem + suffix.strip()).lower() if suffix == ".io" else (stem + suffix).lower()
        elif style == "camel":
            name = stem + suffix.replace(" ", "")
        elif style == "upper" and suffix.startswith(" "):
            name = stem.upper() + suffix
        else:
            name = stem + suffix
        slug = slugify(name)
        domain = name.lower() if suffix == ".io" else slug.replace("-", "") + ".com"
        yield name, slug, domain
        if index % 9 == 0:  # now and then a Korean one
            head, head_slug = KOREAN_ORG_HEADS[(index // 9) % len(KOREAN_ORG_HEADS)]
            tail, tail_slug = KOREAN_ORG_TAILS[(index // 72) % len(KOREAN_ORG_TAILS)]
            yield f"{head}{tail}", f"{head_slug}-{tail_slug}", f"{head_slug}{tail_slug}.co.kr"


def organisations(count, rng):
    """`count` (name, slug, domain) with distinct names and slugs, real ones first."""
    real = [tuple(line.split("|")) for line in REAL_ORGS.strip().splitlines()]
    made_up = list(made_up_orgs())
    rng.shuffle(made_up)
    chosen, names, slugs = [], set(), set()
    for org in real + made_up:
        if len(chosen) == count:
            break
        if org[0] in names or org[1] in slugs:
            continue
        names.add(org[0])
        slugs.add(org[1])
        chosen.append(org)
    return chosen
