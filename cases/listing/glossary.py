"""The search's bilingual glossary: the Korean words of incidents and the other ways they are
written, so that a Korean search finds a text that writes the thing otherwise.

A Korean engineer writes `레디스`, `쿠버네티스` or `앱` where a case says Redis, Kubernetes or
application, and `인증서` or `정전` where a case that has no Korean text yet says certificate or
power outage. A word of the search that the glossary has is also looked for in the others of
its group (`레디스` as `레디스 or redis`), each read as the search reads it (English stemmed,
Korean by its prefix). Only Korean words are looked up: every case has English text, so an
English word finds its cases without Korean; and a word the reader quoted, excluded or joined
with `or` is searched as written (search.Search). A group is one meaning: its Korean forms
(spellings, a loanword and the native word) first, then its English ones; a Korean word that
means several things in incidents (`교체`: replace or rotate) is left out rather than guessed.
"""

import re
from functools import lru_cache

from cases.listing import korean

# Punctuation before or after a word (`과부하,`).
EDGES = re.compile(r"^[^\w]+|[^\w]+$")

GROUPS = [
    # Products and systems, as Korean writes their names.
    ("레디스", "redis"),
    ("카프카", "kafka"),
    ("쿠버네티스", "kubernetes", "k8s"),
    ("도커", "docker"),
    ("엔진엑스", "nginx"),
    ("포스트그레스", "포스트그레스큐엘", "postgres", "postgresql"),
    ("마이에스큐엘", "mysql"),
    ("몽고디비", "mongodb"),
    ("엘라스틱서치", "일래스틱서치", "elasticsearch"),
    ("리눅스", "linux"),
    ("윈도우", "윈도즈", "windows"),
    ("깃허브", "github"),
    ("테라폼", "terraform"),
    ("프로메테우스", "prometheus"),
    ("그라파나", "grafana"),
    ("컨설", "consul"),
    ("주키퍼", "zookeeper"),
    ("카산드라", "cassandra"),
    ("젠킨스", "jenkins"),
    ("시스템디", "systemd"),
    ("다이노", "dyno"),
    ("아마존", "amazon", "aws"),
    ("구글", "google", "gcp"),
    ("애저", "애져", "azure"),
    ("클라우드플레어", "cloudflare"),
    # Things an incident is about.
    ("앱", "애플리케이션", "어플리케이션", "app", "application"),
    ("서버", "server"),
    ("호스트", "host"),
    ("노드", "node"),
    ("파드", "pod"),
    ("컨테이너", "container"),
    ("클러스터", "cluster"),
    ("인스턴스", "instance"),
    ("가상", "virtual"),
    ("머신", "machine"),
    ("데이터베이스", "디비", "database"),
    ("데이터센터", "datacenter"),
    ("캐시", "cache"),
    ("디스크", "disk"),
    ("메모리", "memory"),
    ("스토리지", "저장소", "storage"),
    ("볼륨", "volume"),
    ("네트워크", "network"),
    ("라우터", "router"),
    ("라우팅", "routing"),
    ("스위치", "switch"),
    ("방화벽", "firewall"),
    ("로드밸런서", "부하분산", "balancer"),
    ("프록시", "proxy"),
    ("게이트웨이", "gateway"),
    ("클라이언트", "client"),
    ("브라우저", "browser"),
    ("스크립트", "script"),
    ("리전", "region"),
    ("클라우드", "cloud"),
    ("메타데이터", "metadata"),
    ("레플리카", "복제본", "replica"),
    ("복제", "replication"),
    ("샤드", "shard"),
    ("인덱스", "색인", "index"),
    ("쿼리", "query"),
    ("트랜잭션", "transaction"),
    ("데드락", "교착", "deadlock"),
    ("스레드", "쓰레드", "thread"),
    ("프로세스", "process"),
    ("커널", "kernel"),
    ("스케줄러", "scheduler"),
    ("쿼터", "할당량", "quota"),
    ("토큰", "token"),
    ("세션", "session"),
    ("인증서", "certificate", "cert"),
    ("서명", "signing", "signature"),
    ("비밀번호", "패스워드", "password"),
    ("로그인", "login"),
    ("패킷", "packet"),
    ("프리픽스", "prefix"),
    ("피어링", "peering"),
    ("트래픽", "traffic"),
    ("대역폭", "bandwidth"),
    ("펌웨어", "firmware"),
    ("하드웨어", "hardware"),
    ("소프트웨어", "software"),
    ("운영체제", "os"),
    ("정규식", "정규표현식", "regex", "regexp"),
    ("백트래킹", "backtracking"),
    ("대시보드", "dashboard"),
    ("모니터링", "monitoring"),
    ("로그", "log", "logging"),
    ("알림", "경보", "alert", "alerting"),
    ("컨트롤", "control"),
    ("플레인", "plane"),
    ("배터리", "battery"),
    ("발전기", "generator"),
    ("차단기", "breaker"),
    ("전원", "power"),
    ("정책", "policy"),
    ("필드", "field"),
    ("널", "null"),
    ("포인터", "pointer"),
    ("플래그", "flag"),
    ("카나리", "canary"),
    # What happens, and what is done about it.
    ("장애", "outage"),
    ("정전", "blackout", "power"),
    ("타임아웃", "시간초과", "timeout"),
    ("지연", "레이턴시", "latency", "delay", "lag"),
    ("과부하", "overload", "overloaded"),
    ("부하", "load"),
    ("폭주", "storm", "surge"),
    ("재시도", "retry", "retries"),
    ("백오프", "backoff"),
    ("만료", "expiry", "expired", "expiration"),
    ("폐기", "revocation", "revoked"),
    ("윤초", "leap"),
    ("윤년", "leap"),
    ("크래시", "crash"),
    ("패닉", "panic"),
    ("버그", "bug"),
    ("무한", "infinite"),
    ("루프", "반복문", "loop"),
    ("배포", "deploy", "deployment", "rollout"),
    ("롤백", "rollback"),
    ("백업", "backup"),
    ("복구", "recovery", "restore"),
    ("페일오버", "장애조치", "failover"),
    ("재부팅", "리부트", "reboot"),
    ("재시작", "restart"),
    ("부팅", "boot"),
    ("업그레이드", "upgrade"),
    ("업데이트", "update"),
    ("패치", "patch"),
    ("설정", "구성", "컨피그", "config", "configuration"),
    ("삭제", "deletion", "deleted"),
    ("유실", "손실", "loss", "lost"),
    ("손상", "corruption", "corrupted"),
    ("오토스케일링", "autoscaling", "autoscaler"),
    ("디도스", "ddos"),
    ("보안", "security"),
    ("자동화", "automation"),
    ("점검", "maintenance"),
]


def _index(groups):
    """{Korean form: the other forms of its groups}, each form once, in the groups' order."""
    others = {}
    for group in groups:
        for form in group:
            if korean.HANGUL_ONLY.fullmatch(form):
                found = others.setdefault(form, [])
                found += [other for other in group if other != form and other not in found]
    return {form: tuple(forms) for form, forms in others.items()}


ALSO = _index(GROUPS)


@lru_cache(maxsize=4096)
def also(word):
    """The other ways the glossary writes a word of the search (its Korean stem's), or ()."""
    word = EDGES.sub("", word or "")
    if not korean.HANGUL_ONLY.fullmatch(word):
        return ()
    for form in (word, korean.stem(word), *_without_particles(word)):
        if form in ALSO:
            return ALSO[form]
    return ()


def _without_particles(word):
    """The word without each of its trailing particles and endings in turn, a stem of one
    syllable too (`앱이`: 앱), which korean.stem keeps whole."""
    tokens = korean.analyser().tokenize(word)
    while len(tokens) > 1 and korean.TRAILING.match(tokens[-1].tag):
        yield word[: tokens[-1].start]
        tokens = tokens[:-1]


# A quoted phrase, or a word with a minus before it: searched as written.
AS_WRITTEN = re.compile(r'"[^"]*"?|(?<!\S)-\S+')


def of_text(text):
    """{stem: the other forms} of the search text's Korean words that the glossary has, the
    stem as the search reads the word (korean.stem); but for the words of a quoted phrase or
    left out with a minus, which mean what they say."""
    found = {}
    for word in AS_WRITTEN.sub(" ", text or "").split():
        forms = also(word)
        if forms:
            found[korean.stem(EDGES.sub("", word))] = forms
    return found
