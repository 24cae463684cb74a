"""The sentence templates of bench/generate.py's cases, each a pair (English, Korean) to be
filled with a case's terms (bench/generate_words.py), its code name and its numbers."""

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
