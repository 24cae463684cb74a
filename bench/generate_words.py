"""The words of bench/generate.py's cases: technical terms in English and Korean, most
frequent first, regions, the syllables of the internal services' code names, and the forms a
Korean word takes before each particle a sentence template may use."""

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
