"""Generate realistic bilingual cases in the exchange format, for benchmarks.

    .venv/bin/python bench/generate.py N FILE [--seed 1] [--check]
    .venv/bin/python -m incidentlib.localdb .venv/bin/python bench/generate.py 100000 /tmp/b.jsonl

Writes N cases G-1 .. G-N to FILE: JSON Lines when FILE ends in .jsonl, else a JSON array
(one case a line). The output depends only on N and --seed: the same bytes every run. Cases
are streamed to the file one at a time, so memory stays flat whatever N is; 100,000 cases
(about 6 KB of JSON each) take well under a minute.

What the cases look like:
- English and Korean texts assembled from sentence templates, filled with technical terms
  whose frequency falls off like Zipf's law: "storage"/"스토리지" is in about 80% of the
  cases, the tail terms in well under 1%, and each case names an internal service (a code
  name such as "Varnok") that only a handful of cases share: rare words for search.
  Korean is missing (null, sometimes "") from some fields of some cases, and from every
  field of about 5% of them.
- min(2000, max(10, N // 50)) organisations (real names first: "Tarsnap", "crates.io",
  "TUI Airways", then made-up ones), a few of them with most of the cases.
- taxonomy slugs of fixtures/taxonomy.json, skewed; 1 to 4 sources, some shared by many
  cases; `related` to up to 3 earlier cases; about 5% recurrences of an earlier case (no
  loops, since they always point back); half the cases reviewed, half drafts; dates from
  2000 to 2026.

--check validates every case against cases/schema/case.schema.json (slow; for testing the
generator, not for benchmarks).
"""

import argparse
import datetime
import json
import random
import sys
import time
from itertools import accumulate, product
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAXONOMY = ROOT / "fixtures" / "taxonomy.json"
SCHEMA = ROOT / "cases" / "schema" / "case.schema.json"

# --- Korean particles ------------------------------------------------------------------------

# Digits read in Korean: 영 일 이 삼 사 오 육 칠 팔 구; those ending in a consonant.
_DIGIT_BATCHIM = set("0136789")


def has_batchim(word):
    """Whether a word ends in a consonant sound, which picks the form of a Korean particle."""
    last = word[-1]
    if "가" <= last <= "힣":
        return (ord(last) - 0xAC00) % 28 != 0
    if last.isdigit():
        return last in _DIGIT_BATCHIM
    # Latin words and acronyms as Koreans read them: ...L, ...M, ...N and -ng end in one.
    return last.lower() in "lmn" or word.lower().endswith("ng")


def korean_forms(word):
    """The word with each particle a template may use: {a[i]} is "스토리지가" or "DNS가"."""
    closed = has_batchim(word)
    last = word[-1]
    rieul = "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 == 8  # ends in ㄹ: takes 로
    return {
        "w": word,
        "i": word + ("이" if closed else "가"),
        "eun": word + ("은" if closed else "는"),
        "eul": word + ("을" if closed else "를"),
        "ro": word + ("으로" if closed and not rieul else "로"),
        "gwa": word + ("과" if closed else "와"),
        "ui": word + "의",
        "e": word + "에",
    }


def english_forms(word):
    return {"w": word, "W": word[0].upper() + word[1:]}


# --- Vocabulary ------------------------------------------------------------------------------

# Technical terms, English and Korean, most frequent first. A case names each with a
# probability of 0.76 / rank ** 0.9 (and a case has at least three): the first is in ~80% of
# the cases, the 10th in ~10%, the last in well under 1%.
TERMS = """
storage|스토리지
network|네트워크
database|데이터베이스
configuration|구성
timeout|타임아웃
deployment|배포 파이프라인
cache|캐시
load balancer|로드 밸런서
metadata|메타데이터
DNS|DNS
replication|복제
certificate|인증서
failover|장애 조치
message queue|메시지 큐
disk|디스크
memory|메모리
monitoring|모니터링
API gateway|API 게이트웨이
authentication|인증
Kubernetes|쿠버네티스
rollback|롤백
retry|재시도
scheduler|스케줄러
backup|백업
kernel|커널
proxy|프록시
BGP|BGP
TLS|TLS
feature flag|기능 플래그
power supply|전원 공급 장치
cooling|냉각 설비
router|라우터
firewall|방화벽
object store|객체 저장소
message broker|메시지 브로커
connection pool|커넥션 풀
index|인덱스
schema migration|스키마 마이그레이션
search cluster|검색 클러스터
control plane|컨트롤 플레인
data plane|데이터 플레인
health check|헬스 체크
rate limiter|속도 제한기
autoscaler|오토스케일러
service mesh|서비스 메시
NFS|NFS
S3|S3
Kafka|Kafka
Redis|Redis
PostgreSQL|PostgreSQL
MySQL|MySQL
etcd|etcd
ZooKeeper|ZooKeeper
Elasticsearch|Elasticsearch
CDN|CDN
edge server|엣지 서버
payment|결제
login|로그인
session|세션
token|토큰
encryption key|암호화 키
regex|정규식
CPU|CPU
GPU|GPU
thread pool|스레드 풀
garbage collector|가비지 컬렉터
file descriptor|파일 디스크립터
inode|아이노드
clock skew|시각 오차
leap second|윤초
time zone|시간대
log pipeline|로그 파이프라인
alerting|알림 체계
on-call|온콜
status page|상태 페이지
runbook|런북
capacity plan|용량 계획
quota|할당량
billing|과금
webhook|웹훅
mobile app|모바일 앱
firmware|펌웨어
driver|드라이버
hypervisor|하이퍼바이저
virtual machine|가상 머신
container|컨테이너
image registry|이미지 레지스트리
package registry|패키지 레지스트리
build system|빌드 시스템
CI pipeline|CI 파이프라인
checksum|체크섬
snapshot|스냅숏
consensus|합의 알고리즘
leader election|리더 선출
quorum|쿼럼
partition|파티션
shard|샤드
write-ahead log|선행 기록 로그
thundering herd|썬더링 허드
split brain|스플릿 브레인
memory leak|메모리 누수
deadlock|교착 상태
race condition|경쟁 조건
integer overflow|정수 오버플로
null pointer|널 포인터
heap|힙 메모리
swap|스왑
UPS|UPS
generator|비상 발전기
fire suppression|소화 설비
fibre cut|광케이블 절단
submarine cable|해저 케이블
transit provider|트랜짓 사업자
peering|피어링
anycast|애니캐스트
IPv6|IPv6
MTU|MTU
NTP|NTP
OAuth|OAuth
SAML|SAML
LDAP|LDAP
single sign-on|통합 인증
email delivery|이메일 발송
SMS gateway|SMS 게이트웨이
push notification|푸시 알림
search index|검색 색인
recommendation service|추천 서비스
ledger|원장
settlement|정산
order book|호가창
trading engine|매매 엔진
card network|카드망
booking system|예약 시스템
check-in|체크인
flight planning|비행 계획
load sheet|탑재 중량표
train signalling|열차 신호
medical records|의무 기록
payroll|급여 시스템
tax filing|세금 신고
satellite link|위성 링크
telemetry|텔레메트리
sensor|센서
PLC|PLC
SCADA|SCADA
endpoint agent|엔드포인트 에이전트
content update|콘텐츠 업데이트
signature file|시그니처 파일
boot loop|부팅 반복
BIOS|BIOS
microcode|마이크로코드
SSD|SSD
RAID|RAID
tape library|테이프 라이브러리
erasure coding|이레이저 코딩
deduplication|중복 제거
compaction|컴팩션
vacuum|VACUUM
transaction wraparound|트랜잭션 ID 랩어라운드
sequence|시퀀스
primary key|기본 키
foreign key|외래 키
ORM|ORM
query planner|쿼리 플래너
bloom filter|블룸 필터
hash ring|해시 링
gossip protocol|가십 프로토콜
service discovery|서비스 디스커버리
sidecar|사이드카
circuit breaker|서킷 브레이커
backpressure|배압
idempotency key|멱등성 키
cron job|크론 작업
batch job|배치 작업
ETL|ETL
data warehouse|데이터 웨어하우스
stream processor|스트림 처리기
model training|모델 학습
inference|추론 서버
checkpoint|체크포인트
RoCE|RoCE
InfiniBand|InfiniBand
NVLink|NVLink
readahead|readahead
"""
TERM_PAIRS = [line.split("|") for line in TERMS.strip().splitlines()]
TERM_WEIGHTS = [0.76 / rank**0.9 for rank in range(1, len(TERM_PAIRS) + 1)]

REGIONS = [
    ("us-east-1", "us-east-1"),
    ("eu-west-1", "eu-west-1"),
    ("ap-northeast-2", "ap-northeast-2"),
    ("Seoul", "서울"),
    ("Frankfurt", "프랑크푸르트"),
    ("Virginia", "버지니아"),
    ("Tokyo", "도쿄"),
    ("Singapore", "싱가포르"),
    ("London", "런던"),
    ("São Paulo", "상파울루"),
    ("Sydney", "시드니"),
    ("Busan", "부산"),
    ("Amsterdam", "암스테르담"),
    ("Oregon", "오리건"),
]

# Syllables of the internal services' code names ("Varnok", "Tesmira"): rare words.
CODE_HEADS = "Var Tes Kol Mir Zan Quel Bor Hal Fen Dro Lun Cas Pyr Ost Vel Nim Sor Tal Gri Ober"
CODE_MIDS = "no mi ra ve ta lo ku si pe do"
CODE_TAILS = "k ra x th n l s vin dor mek"

# --- Sentence templates: (English, Korean); {a} and {b} are terms, {x} the code name --------

TITLES = [
    (
        "{x[w]} outage in {region[0]} caused by a {a[w]} misconfiguration",
        "{a[w]} 설정 오류로 {region[1]}의 {x[w]} 서비스 장애",
    ),
    (
        "{a[W]} failure at {org} cascades into {b[w]} errors for {h} hours",
        "{org}의 {a[w]} 장애가 {h}시간 동안 {b[w]} 오류로 번졌다",
    ),
    (
        "Expired {a[w]} credentials take {x[w]} offline for {h} hours",
        "{a[ui]} 자격 증명이 만료되어 {x[w]} 서비스가 {h}시간 동안 멈췄다",
    ),
    (
        "{a[W]} saturation during the {x[w]} migration slows the {b[w]} to a crawl",
        "{x[w]} 마이그레이션 중 {a[w]} 포화로 {b[i]} 크게 느려졌다",
    ),
    (
        "Routine {a[w]} maintenance deletes {b[w]} data for {x[w]} in {region[0]}",
        "정기 {a[w]} 점검 중 {region[1]}의 {x[w]} {b[w]} 데이터가 삭제되었다",
    ),
    (
        "Retry storm against the {a[w]} after a {b[w]} change to {x[w]}",
        "{x[w]}의 {b[w]} 변경 뒤 {a[e]} 재시도가 폭주했다",
    ),
    (
        "{org}: the {a[w]} and the {b[w]} fail together through a shared {x[w]} dependency",
        "{org}: {x[w]} 의존성을 함께 쓰던 {a[gwa]} {b[i]} 동시에 실패했다",
    ),
    (
        "Partial {x[w]} outage after a {a[w]} failover did not complete",
        "{a[w]} 장애 조치가 끝나지 않아 {x[w]} 일부가 멈췄다",
    ),
    (
        "Stale {a[w]} data served by {x[w]} for {h} hours after a {b[w]} bug",
        "{b[w]} 버그로 {x[i]} {h}시간 동안 오래된 {a[w]} 데이터를 내보냈다",
    ),
    (
        "{a[W]} capacity exhausted: {x[w]} at {org} degraded for {pct}% of users",
        "{a[w]} 용량 고갈로 {org}의 {x[w]} 사용자 {pct}%가 영향을 받았다",
    ),
]

SUMMARY = [
    (
        "At {t} UTC, requests that depended on the {a[w]} in {region[0]} began to fail.",
        "{t} UTC 무렵 {region[1]}에서 {a[e]} 기대는 요청들이 실패하기 시작했다.",
    ),
    (
        "A change to the {a[w]} configuration reached {pct}% of hosts within {m} minutes.",
        "{a[ui]} 설정 변경이 {m}분 만에 호스트의 {pct}%에 퍼졌다.",
    ),
    (
        "The {x[w]} service, which sits in front of the {b[w]}, retried every failed call "
        "and multiplied the load.",
        "{b[w]} 앞단의 {x[w]} 서비스가 실패한 호출을 모두 다시 시도하면서 부하가 몇 배로 늘었다.",
    ),
    (
        "Engineers first suspected the {b[w]}, but its dashboards looked normal.",
        "엔지니어들은 처음에 {b[eul]} 의심했지만 대시보드에는 이상이 없어 보였다.",
    ),
    (
        "Because the {a[w]} and the {b[w]} shared one failure domain, the fallback path "
        "failed at the same time.",
        "{a[gwa]} {b[i]} 같은 장애 도메인에 있어서 대체 경로도 함께 실패했다.",
    ),
    (
        "Within {m} minutes the error rate reached {pct}%, and about {k} customers were affected.",
        "{m}분 만에 오류율이 {pct}%에 이르렀고 고객 약 {k}명이 영향을 받았다.",
    ),
    (
        "The {a[w]} cluster had been running close to its limits for weeks before the incident.",
        "{a[w]} 클러스터는 사고 몇 주 전부터 한계에 가깝게 돌고 있었다.",
    ),
    (
        "A latent bug in the {x[w]} client made it ignore {b[w]} deadlines under load.",
        "{x[w]} 클라이언트의 잠재 버그 때문에 부하가 높을 때 {b[w]} 기한이 무시되었다.",
    ),
    (
        "Version {ver} of the {a[w]} agent was shipped to every region without a staged rollout.",
        "{a[w]} 에이전트 {ver} 버전이 단계적 배포 없이 모든 리전에 한꺼번에 나갔다.",
    ),
    (
        "The engineer on call was paged {m} minutes after the first errors.",
        "첫 오류가 난 지 {m}분 뒤에 당번 엔지니어가 호출되었다.",
    ),
    (
        "Traffic was moved away from {region[0]}, which brought most requests back after "
        "{h} hours.",
        "트래픽을 {region[1]} 밖으로 돌리자 {h}시간 만에 대부분의 요청이 되살아났다.",
    ),
    (
        "Replicas of the {a[w]} fell behind by {m} minutes, so readers saw old data.",
        "{a[ui]} 복제본이 {m}분씩 뒤처져 읽기 요청이 오래된 데이터를 보았다.",
    ),
    (
        "Nobody had tried restoring the {b[w]} from a copy at this scale.",
        "이 규모에서 사본으로부터 {b[eul]} 되살리는 절차를 시험해 본 사람이 없었다.",
    ),
    (
        "The public incident page itself depended on the {a[w]} and could not be updated.",
        "공개 장애 안내 페이지조차 {a[e]} 의존하고 있어서 갱신할 수 없었다.",
    ),
    (
        "The report counts {k} failed requests and {n} hosts that had to be restarted by hand.",
        "보고서에 따르면 실패한 요청은 {k}건, 손으로 다시 켜야 했던 호스트는 {n}대였다.",
    ),
    (
        "Operators stopped the {x[w]} jobs and emptied the {a[w]} backlog before starting "
        "them again.",
        "운영자들은 {x[w]} 작업을 멈추고 밀린 {a[w]} 작업을 비운 뒤 다시 시작했다.",
    ),
    (
        "The {a[w]} and {b[w]} teams each looked at their own metrics and saw nothing wrong.",
        "{a[w]} 팀과 {b[w]} 팀은 각자 자기 지표만 보았고 어느 쪽도 이상을 찾지 못했다.",
    ),
    (
        "A single malformed entry in the {b[w]} file was pushed to every site at once.",
        "{b[w]} 파일의 잘못된 항목 하나가 모든 사이트에 한꺼번에 배포되었다.",
    ),
    (
        "Clients reconnected all at once when the {a[w]} came back, causing a second, "
        "shorter outage.",
        "{a[i]} 돌아오자 클라이언트들이 한꺼번에 다시 접속해 짧은 두 번째 장애가 났다.",
    ),
    (
        "The incident lasted {h} hours and {m} minutes from the first alert to full recovery "
        "at {org}.",
        "{org}에서 첫 경보부터 완전 복구까지 사고는 {h}시간 {m}분 동안 이어졌다.",
    ),
    (
        "Customers of {org} in {region[0]} were the most affected, since the {x[w]} fleet "
        "there had no spare {b[w]} capacity.",
        "그곳 {x[w]} 장비에 여유 {b[w]} 용량이 없어서 {region[1]}의 {org} 고객이 가장 큰 "
        "영향을 받았다.",
    ),
    (
        "The {a[w]} logs showed {k} warnings an hour for days, but no one was watching them.",
        "{a[w]} 로그에는 며칠 동안 시간당 {k}건의 경고가 찍혔지만 아무도 보지 않았다.",
    ),
]

TRIGGERS = [
    (
        "A change to the {a[w]} settings was deployed to all regions at once.",
        "{a[w]} 설정 변경이 모든 리전에 한꺼번에 배포되었다.",
    ),
    (
        "A scheduled upgrade of the {a[w]} to version {ver}.",
        "{a[ui]} {ver} 버전 정기 업그레이드.",
    ),
    (
        "Traffic to {x[w]} grew {pct}% in an hour after a product launch.",
        "신제품 출시 뒤 한 시간 만에 {x[w]} 트래픽이 {pct}% 늘었다.",
    ),
    (
        "An operator ran a cleanup script against the wrong {b[w]} cluster.",
        "운영자가 정리 스크립트를 엉뚱한 {b[w]} 클러스터에 실행했다.",
    ),
    (
        "A power event in one {region[0]} data centre hall took out part of the {a[w]}.",
        "{region[1]} 데이터센터 한 구역의 전원 사고로 {a[w]} 일부가 꺼졌다.",
    ),
    (
        "The {a[w]} credentials expired at midnight UTC.",
        "{a[ui]} 자격 증명이 UTC 자정에 만료되었다.",
    ),
    (
        "A cable cut between two sites isolated the {a[w]} from the {b[w]}.",
        "두 사이트 사이의 케이블이 끊겨 {a[i]} {b[e]}서 고립되었다.",
    ),
    (
        "A {b[w]} job started by {x[w]} held locks on the {a[w]} for {m} minutes.",
        "{x[i]} 시작한 {b[w]} 작업이 {m}분 동안 {a[w]} 잠금을 쥐고 있었다.",
    ),
]

SYMPTOMS = [
    (
        "Requests to {x[w]} failed with HTTP 503 for {pct}% of users.",
        "{x[w]} 요청의 {pct}%가 HTTP 503으로 실패했다.",
    ),
    (
        "The p99 latency of the {a[w]} rose from {n} ms to over {k} ms.",
        "{a[ui]} p99 응답 시간이 {n}ms에서 {k}ms 넘게 늘었다.",
    ),
    (
        "The {b[w]} hosts ran out of {a[w]} headroom and restarted in a loop.",
        "{b[w]} 호스트들이 {a[w]} 여유가 바닥나 계속 다시 시작했다.",
    ),
    (
        "Writes to the {a[w]} were acknowledged but never persisted.",
        "{a[e]} 쓴 데이터가 확인 응답만 받고 실제로는 남지 않았다.",
    ),
    (
        "Dashboards showed normal {b[w]} throughput while customers reported errors.",
        "고객들은 오류를 신고했지만 대시보드의 {b[w]} 처리량은 정상으로 보였다.",
    ),
    (
        "The backlog in {x[w]} grew by {k} messages a minute.",
        "{x[w]}에 밀린 메시지가 분당 {k}건씩 늘었다.",
    ),
    (
        "Users in {region[0]} could neither sign in nor pay.",
        "{region[1]} 사용자들은 로그인도 결제도 할 수 없었다.",
    ),
    (
        "The {a[w]} error log grew to {n} GB in an hour.",
        "{a[w]} 오류 로그가 한 시간 만에 {n}GB로 불어났다.",
    ),
    (
        "Throughput of the {b[w]} stayed at {pct}% of its usual rate for hours.",
        "{b[ui]} 처리량이 몇 시간 동안 평소의 {pct}%에 머물렀다.",
    ),
    (
        "Some {a[w]} nodes answered health probes while dropping real traffic.",
        "일부 {a[w]} 노드는 상태 검사에는 응답하면서 실제 트래픽은 버렸다.",
    ),
]

DETECTION = [
    (
        "An automated alert on {a[w]} error rates fired after {m} minutes.",
        "{m}분 뒤 {a[w]} 오류율 자동 경보가 울렸다.",
    ),
    (
        "Customers reported the problem on social media before any internal alert fired.",
        "내부 경보보다 먼저 고객들이 소셜 미디어에 문제를 알렸다.",
    ),
    (
        "A synthetic probe against {x[w]} failed from {n} locations.",
        "{x[w]} 합성 점검이 {n}곳의 측정 지점에서 실패했다.",
    ),
    (
        "The {b[w]} team noticed the anomaly on a capacity dashboard during a routine review.",
        "{b[w]} 팀이 정기 검토 중 용량 대시보드에서 이상을 발견했다.",
    ),
    (
        "Monitoring of the {a[w]} itself depended on the failing component, so the first "
        "alerts never arrived.",
        "{a[w]} 감시 자체가 고장 난 구성 요소에 의존해 첫 경보가 오지 않았다.",
    ),
    (
        "An engineer at {org} saw {x[w]} error counts climb while testing an unrelated change.",
        "{org}의 엔지니어가 다른 변경을 시험하다가 {x[w]} 오류 수가 오르는 것을 보았다.",
    ),
]

LESSONS = [
    (
        "Changes to the {a[w]} need a staged rollout, however small they look.",
        "{a[w]} 변경은 작아 보여도 단계적으로 배포해야 한다.",
    ),
    (
        "Test recovery of the {b[w]} at production scale, not only on a few nodes.",
        "{b[w]} 복구는 몇 개 노드가 아니라 운영 규모에서 시험해야 한다.",
    ),
    (
        "A fallback that shares a dependency with the primary path is not a fallback.",
        "주 경로와 의존성을 공유하는 대체 경로는 대체 경로가 아니다.",
    ),
    (
        "Alert on what users see, not only on the health of the {a[w]}.",
        "{a[ui]} 상태만이 아니라 사용자가 겪는 현상에 경보를 걸어야 한다.",
    ),
    (
        "Retries without backoff turned a short {b[w]} failure into an outage.",
        "간격 없는 재시도가 짧은 {b[w]} 장애를 전면 장애로 키웠다.",
    ),
    (
        "Metrics from the {a[w]}, the {b[w]} and the application must be readable on one timeline.",
        "{a[w]}, {b[w]}, 애플리케이션의 지표를 한 타임라인에서 볼 수 있어야 한다.",
    ),
    (
        "The procedures for {x[w]} were out of date and slowed the response.",
        "{x[w]} 대응 절차가 낡아서 대응이 늦어졌다.",
    ),
    (
        "Limits on the {a[w]} should fail safe: refuse new work rather than fall over.",
        "{a[w]} 한도는 안전하게 실패해야 한다. 쓰러지기보다 새 작업을 거절하는 편이 낫다.",
    ),
]

REMEDIATION = [
    (
        "Rolled back the {a[w]} settings to the previous version",
        "{a[w]} 설정을 이전 버전으로 되돌렸다.",
    ),
    (
        "Restarted the {b[w]} nodes one availability zone at a time",
        "{b[w]} 노드를 가용 영역 하나씩 다시 시작했다.",
    ),
    (
        "Moved traffic for {x[w]} to {region[0]}",
        "{x[w]} 트래픽을 {region[1]} 리전으로 옮겼다.",
    ),
    (
        "Added {n} nodes to the {a[w]} cluster",
        "{a[w]} 클러스터에 노드 {n}대를 추가했다.",
    ),
    (
        "Turned off the {x[w]} feature switch",
        "{x[w]} 기능 스위치를 껐다.",
    ),
    (
        "Restored the {b[w]} from the last good copy",
        "마지막 정상 사본에서 {b[eul]} 되살렸다.",
    ),
    (
        "Raised the {a[w]} connection limit from {n} to {k}",
        "{a[ui]} 연결 한도를 {n}에서 {k}로 올렸다.",
    ),
    (
        "Drained the {a[w]} backlog and rebuilt it",
        "밀린 {a[w]} 작업을 비우고 다시 만들었다.",
    ),
    (
        "Replaced the faulty {b[w]} hardware in {region[0]}",
        "{region[1]}의 고장 난 {b[w]} 장비를 교체했다.",
    ),
]

ACTION_ITEMS = [
    (
        "Add a canary stage to {a[w]} deployments",
        "{a[w]} 배포에 카나리 단계를 추가한다.",
    ),
    (
        "Alert on {b[w]} saturation before it reaches {pct}%",
        "{b[w]} 사용률이 {pct}%에 이르기 전에 경보를 보낸다.",
    ),
    (
        "Remove the dependency of the incident page on the {a[w]}",
        "장애 안내 페이지가 {a[e]} 의존하지 않게 한다.",
    ),
    (
        "Run a recovery drill for {x[w]} every quarter",
        "분기마다 {x[w]} 복구 훈련을 한다.",
    ),
    (
        "Add exponential backoff with jitter to {x[w]} clients",
        "{x[w]} 클라이언트에 무작위 지연을 더한 지수 백오프를 넣는다.",
    ),
    (
        "Document the {b[w]} switch-over procedure",
        "{b[w]} 전환 절차를 문서로 남긴다.",
    ),
]

IMPACT_SCOPES = [
    "{x} unavailable for {pct}% of requests",
    "degraded {a} for customers in {region}",
    "all {x} traffic in {region}",
    "{k} accounts could not sign in",
]

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


# --- The generator ---------------------------------------------------------------------------

REVIEWERS = ["rita", "seojun", "hana", "tom", "minji"]
WRITERS = ["session", "alex", "jkim", "curator", None]
SOURCE_KINDS = ["postmortem"] * 5 + ["blog"] * 3 + ["news"] * 3 + ["status-page", "paper", "talk"]
LICENSES = [None, None, "unknown", "CC BY 4.0", "CC BY-SA 4.0", "all rights reserved"]
NEWS_SITES = (
    "www.theregister.com arstechnica.com www.bleepingcomputer.com news.ycombinator.com "
    "www.zdnet.co.kr www.etnews.com www.bbc.co.uk/news techcrunch.com"
).split()
DATE_KINDS = ["occurred"] * 6 + ["detected", "reported", "published", "published"]
FIRST_DAY = datetime.date(2000, 1, 1).toordinal()
LAST_DAY = datetime.date(2026, 11, 30).toordinal()


def zipf_cum_weights(count, exponent):
    return list(accumulate(1 / rank**exponent for rank in range(1, count + 1)))


def duration(minutes):
    """ISO 8601 duration: 45 -> PT45M, 3060 -> P2DT3H."""
    days, rest = divmod(minutes, 1440)
    hours, minutes = divmod(rest, 60)
    time_part = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    return "P" + (f"{days}D" if days else "") + (f"T{time_part}" if time_part else "")


class Generator:
    def __init__(self, count, seed=1):
        self.count = count
        self.rng = rng = random.Random(seed)
        self.terms = [(english_forms(en), korean_forms(ko)) for en, ko in TERM_PAIRS]
        heads, mids, tails = CODE_HEADS.split(), CODE_MIDS.split(), CODE_TAILS.split()
        code_names = sorted(
            {h + m + t for h, m, t in product(heads, mids, tails)}
            | {h + m + m2 + t for h, m, m2, t in product(heads, mids, mids, tails)}
        )
        rng.shuffle(code_names)
        # About four cases per code name, whatever N (up to 88,000 cases: 22,000 names).
        code_names = code_names[: max(10, count // 4)]
        self.code_names = [(english_forms(name), korean_forms(name)) for name in code_names]
        self.orgs = organisations(min(2000, max(10, count // 50)), rng)
        self.org_weights = zipf_cum_weights(len(self.orgs), 1.0)
        self.last_case_of_org = {}
        self.facets = self.taxonomy(rng)
        self.shared_sources = [self.shared_source(k) for k in range(max(10, count // 20))]
        self.shared_weights = zipf_cum_weights(len(self.shared_sources), 0.8)

    @staticmethod
    def taxonomy(rng):
        """Each facet's slugs in a fixed random order, with Zipf-like cumulative weights."""
        facets = {}
        for term in json.loads(TAXONOMY.read_text(encoding="utf-8")):
            facets.setdefault(term["facet"], []).append(term["slug"])
        result = {}
        for facet, slugs in facets.items():
            if facet == "severity":
                slugs = ["high", "medium", "critical", "low", "unknown"]
            else:
                rng.shuffle(slugs)
            result[facet] = (slugs, zipf_cum_weights(len(slugs), 1.1))
        return result

    def shared_source(self, k):
        rng = self.rng
        site = NEWS_SITES[k % len(NEWS_SITES)]
        year = rng.randint(2000, 2026)
        words = "-".join(rng.choice(TERM_PAIRS)[0].replace(" ", "-").lower() for _ in range(3))
        return f"https://{site}/{year}/{rng.randint(1, 12):02d}/{words}-outage-{k}/"

    def pick_slugs(self, facet, low, high):
        slugs, weights = self.facets[facet]
        wanted = self.rng.randint(low, high)
        chosen = []
        while len(chosen) < wanted:
            (slug,) = self.rng.choices(slugs, cum_weights=weights)
            if slug not in chosen:
                chosen.append(slug)
        return chosen

    def fill(self, templates, count, slots, case_terms, cursor):
        """`count` sentences (English list, Korean list) from random templates; the terms of
        the case are used in turn, so each of them appears somewhere in the case."""
        rng, english, korean = self.rng, [], []
        en_slots, ko_slots = slots
        size = len(case_terms)
        for en, ko in rng.sample(templates, count):
            a_en, a_ko = case_terms[cursor[0] % size]
            b_en, b_ko = case_terms[(cursor[0] + 1) % size]
            cursor[0] += 2
            numbers = {
                "n": rng.randint(2, 400),
                "k": rng.randint(500, 90000),
                "m": rng.randint(2, 59),
                "h": rng.randint(1, 30),
                "pct": rng.randint(3, 99),
            }
            en_slots.update(numbers, a=a_en, b=b_en)
            ko_slots.update(numbers, a=a_ko, b=b_ko)
            english.append(en.format_map(en_slots))
            korean.append(ko.format_map(ko_slots))
        return english, korean

    def case(self, n):
        rng = self.rng
        org_index = rng.choices(range(len(self.orgs)), cum_weights=self.org_weights)[0]
        org, org_slug, domain = self.orgs[org_index]
        case_id = f"G-{n}"

        # The case's terms: each with its Zipf-like probability, at least three.
        case_terms = [t for t, p in zip(self.terms, TERM_WEIGHTS, strict=True) if rng.random() < p]
        while len(case_terms) < 3:
            extra = rng.choice(self.terms)
            if extra not in case_terms:
                case_terms.append(extra)
        rng.shuffle(case_terms)
        code_en, code_ko = rng.choice(self.code_names)
        region = rng.choice(REGIONS)
        day = FIRST_DAY + int((LAST_DAY - FIRST_DAY) * rng.random() ** 0.6)
        date = datetime.date.fromordinal(day)
        common = {
            "org": org,
            "region": region,
            "t": f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
            "ver": f"{rng.randint(1, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
        }
        slots = ({**common, "x": code_en}, {**common, "x": code_ko})
        cursor = [0]

        def text(templates, count, joiner=" ", paragraphs=1):
            en_parts, ko_parts = [], []
            for _ in range(paragraphs):
                en, ko = self.fill(templates, count, slots, case_terms, cursor)
                en_parts.append(" ".join(en))
                ko_parts.append(" ".join(ko))
            return joiner.join(en_parts), joiner.join(ko_parts)

        no_korean = rng.random() < 0.05

        def bilingual(pair, required=False):
            en, ko = pair
            if no_korean:
                ko = None
            else:
                r = rng.random()
                if r < 0.06:
                    ko = None
                elif r < 0.08 and not required:
                    ko = ""
            return {"en": en, "ko": ko}

        title = bilingual(text(TITLES, 1), required=True)
        summary = bilingual(text(SUMMARY, rng.randint(3, 5), "\n\n", paragraphs=3), True)
        trigger = bilingual(text(TRIGGERS, rng.randint(1, 2)))
        symptoms_text = bilingual(text(SYMPTOMS, rng.randint(2, 4), "\n\n", paragraphs=2))
        detection = bilingual(text(DETECTION, rng.randint(2, 3)))
        lessons = bilingual(text(LESSONS, rng.randint(2, 4)))
        remediation = [
            {"text": bilingual(text(REMEDIATION, 1), True)} for _ in range(rng.randint(2, 5))
        ]
        action_items = [
            {"text": bilingual(text(ACTION_ITEMS, 1), True)} for _ in range(rng.randint(1, 3))
        ]

        sources = []
        for index in range(rng.randint(1, 4)):
            if index and rng.random() < 0.5:
                (url,) = rng.choices(self.shared_sources, cum_weights=self.shared_weights)
            else:
                url = f"https://{domain}/blog/{date.year}/{code_en['w'].lower()}-{n}-{index}"
            if any(source["url"] == url for source in sources):
                continue
            archived = None
            if rng.random() < 0.3:
                archived = f"https://web.archive.org/web/{date:%Y%m%d}000000/{url}"
            sources.append(
                {
                    "url": url,
                    "kind": rng.choice(SOURCE_KINDS),
                    "license": rng.choice(LICENSES),
                    "archived": archived,
                }
            )

        related = []
        if n > 1:
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                other = f"G-{rng.randint(max(1, n - 5000), n - 1)}"
                if other not in related:
                    related.append(other)
        recurrence_of = None
        if n > 1 and rng.random() < 0.05:
            recurrence_of = self.last_case_of_org.get(org_slug) or f"G-{rng.randint(1, n - 1)}"
        self.last_case_of_org[org_slug] = case_id

        detected = rng.choice((None, rng.randint(1, 240)))
        resolved = rng.choice((None, (detected or 0) + rng.randint(10, 4000)))
        review_day = min(day + rng.randint(1, 400), LAST_DAY)
        reviewed = rng.random() < 0.5
        reviewed_at = (
            f"{datetime.date.fromordinal(review_day)}T{rng.randint(0, 23):02d}:"
            f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        )
        updated_day = min(review_day + rng.randint(0, 30), LAST_DAY + 1)
        updated_at = (
            f"{datetime.date.fromordinal(updated_day)}T{rng.randint(0, 23):02d}:"
            f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}Z"
        )
        impact_slots = {
            "x": code_en["w"],
            "a": case_terms[0][0]["w"],
            "region": region[0],
            "pct": rng.randint(3, 99),
            "k": rng.randint(100, 100000),
        }
        docs = []
        if rng.random() < 0.03:
            docs = [
                {
                    "kind": "timeline",
                    "entries": [
                        {"at": f"{date}T{hour:02d}:00:00Z", "text": f"step {hour}"}
                        for hour in range(rng.randint(1, 4))
                    ],
                }
            ]
        return {
            "id": case_id,
            "org": org,
            "org_slug": org_slug,
            "date": date.isoformat(),
            "date_kind": rng.choice(DATE_KINDS),
            "title": title,
            "summary": summary,
            "trigger": trigger,
            "symptoms_text": symptoms_text,
            "detection": detection,
            "lessons": lessons,
            "impact": {
                "scope": rng.choice(IMPACT_SCOPES).format_map(impact_slots)
                if rng.random() < 0.8
                else None,
                "users": rng.choice(("unknown", f"about {impact_slots['k']} users", None)),
                "region": rng.choice((region[0], "global", "unknown", None)),
            },
            "severity": self.pick_slugs("severity", 1, 1)[0],
            "root_cause": self.pick_slugs("root_cause", 1, 1)[0],
            "domain": self.pick_slugs("domain", 1, 2),
            "symptoms": self.pick_slugs("symptoms", 1, 3),
            "components": self.pick_slugs("components", 1, 3),
            "contributing": self.pick_slugs("contributing", 0, 3),
            "timeline": {
                "detected_after": None if detected is None else duration(detected),
                "resolved_after": None if resolved is None else duration(resolved),
            },
            "remediation": remediation,
            "action_items": action_items,
            "sources": sources,
            "docs": docs,
            "related": related,
            "recurrence_of": recurrence_of,
            "review": {
                "written_by": rng.choice(WRITERS),
                "reviewed_by": rng.choice(REVIEWERS) if reviewed else None,
                "reviewed_at": reviewed_at if reviewed else None,
            },
            "updated_at": updated_at,
            "url": f"https://{domain}/incidents/{n}" if rng.random() < 0.6 else None,
        }

    def __iter__(self):
        for n in range(1, self.count + 1):
            yield self.case(n)


def write(count, path, seed=1):
    """Write `count` cases to `path` (.jsonl: JSON Lines, otherwise a JSON array)."""
    lines = path.suffix == ".jsonl"
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as out:
        if not lines:
            out.write("[\n")
        for index, case in enumerate(Generator(count, seed)):
            if not lines and index:
                out.write(",\n")
            out.write(json.dumps(case, ensure_ascii=False))
            if lines:
                out.write("\n")
        if not lines:
            out.write("\n]\n")


def check(path):
    """Validate every case of `path` against the schema; print the first problems."""
    from jsonschema import Draft202012Validator

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    text = path.read_text(encoding="utf-8")
    cases = (
        [json.loads(line) for line in text.splitlines()]
        if path.suffix == ".jsonl"
        else json.loads(text)
    )
    bad = 0
    for case in cases:
        for error in validator.iter_errors(case):
            bad += 1
            if bad <= 10:
                print(f"{case.get('id')}: {list(error.absolute_path)}: {error.message}")
    print(f"checked {len(cases)} cases: {bad} problems")
    return bad == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, metavar="N")
    parser.add_argument("file", type=Path, metavar="FILE")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="validate every case afterwards")
    args = parser.parse_args()
    started = time.perf_counter()
    write(args.count, args.file, args.seed)
    seconds = time.perf_counter() - started
    size = args.file.stat().st_size
    print(
        f"{args.count} cases to {args.file} in {seconds:.1f} s: {size / 1e6:.1f} MB, "
        f"{size / max(args.count, 1) / 1000:.1f} KB a case"
    )
    if args.check and not check(args.file):
        sys.exit(1)


if __name__ == "__main__":
    main()
