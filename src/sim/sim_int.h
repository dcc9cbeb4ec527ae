/* sim_int.h - the simulator's internal structures, shared by its files:
 *
 *   engine.c   the event queue (an indexed binary heap)
 *   noc.c      routes, shared resources, channels and the fluid model's flows
 *   share.c    the fluid model's max-min fair shares
 *   dram.c     DRAM banks as endpoints and resources, tensor interleaving and storage
 *   pktref.c   a flit-level reference of the same network, for tests only
 *   core.c     the kernel interpreter: engines, CBs, semaphores, barriers
 *   compute.c  tile-op chunks: their cost from the description and their values
 *   sim.c      sim_run: set-up, the event loop, deadlock detection
 *   trace.c    Chrome/Perfetto trace output
 *   report.c   results, text and JSON reports
 *
 * Objects refer to each other by index, never by pointer, so that the pools
 * can grow and so that no decision depends on an address.
 */
#ifndef LOOMC_SIM_INT_H
#define LOOMC_SIM_INT_H

#include "num/num.h"
#include "sim/sim.h"

/* ==== engine.c: events ==================================================== */

/* Event kinds; the owner of an event is an index into the pool of its kind. */
enum { SIM_EV_ENGINE = 1, SIM_EV_CHAN, SIM_EV_XFER };

typedef struct sim_event {
    double t;       /* when it fires */
    uint64_t seq;   /* schedule order: breaks ties in time */
    int32_t hpos;   /* position in the heap, -1 when not scheduled */
    int32_t obj;    /* owner index */
    uint8_t kind;
} sim_event;

/* A heap slot carries its event's key, so sifting reads one array. */
typedef struct sim_hslot {
    double t;
    uint64_t seq;
    int32_t e;
} sim_hslot;

typedef struct sim_queue {
    sim_event *ev;  /* every event ever created; owners keep theirs for life */
    int32_t nev, capev;
    sim_hslot *heap;/* a binary min-heap on (t, seq) */
    int32_t nheap, capheap;
    uint64_t seq;
    double now;
    uint64_t popped;
} sim_queue;

void sim_q_init(sim_queue *q);
void sim_q_free(sim_queue *q);
int32_t sim_q_new(sim_queue *q, int kind, int32_t obj);
/* Schedule (or move) event e to time t >= now. */
void sim_q_at(sim_queue *q, int32_t e, double t);
void sim_q_cancel(sim_queue *q, int32_t e);
/* Remove the earliest event, advance `now` to it; -1 when empty. */
int32_t sim_q_pop(sim_queue *q);
static inline bool sim_q_empty(const sim_queue *q) { return q->nheap == 0; }
static inline double sim_q_next_time(const sim_queue *q) { return q->heap[0].t; }
static inline bool sim_q_pending(const sim_queue *q, int32_t e) { return q->ev[e].hpos >= 0; }

/* ==== noc.c / dram.c: the network ========================================= */

enum { SIM_E, SIM_S, SIM_W, SIM_N }; /* link directions: +x, +y, -x, -y */

typedef enum sim_rkind {
    SIM_R_LINK,     /* a router-to-router link of one NoC in one direction */
    SIM_R_NIU_OUT,  /* a core's NoC interface, sourcing (core_write_bpc) */
    SIM_R_NIU_IN,   /* a core's NoC interface, sinking (core_read_bpc) */
    SIM_R_MCAST,    /* a core's multicast capability on one NoC (mcast_bpc) */
    SIM_R_BANK_RD,  /* a DRAM bank's read bandwidth */
    SIM_R_BANK_WR,  /* a DRAM bank's write bandwidth */
} sim_rkind;

/* A channel crossing a resource: which one, and which of its resources. */
typedef struct sim_fref {
    int32_t chan, k;
} sim_fref;

/* A candidate of the water-filling (share.c): a resource (x >= 0) or a
 * channel (-x - 1), its key, and its level when last looked at. */
typedef struct sim_wslot {
    double key, lv;
    int32_t x;
} sim_wslot;

typedef struct sim_res {
    /* the water-filling's fields first, together (share.c) */
    double cap;        /* bytes per cycle */
    double rem;        /* water-filling: capacity not yet given out */
    sim_fref *fl;      /* active channels crossing it */
    int32_t nfl;
    int32_t unfrozen;  /* water-filling: channels without a rate yet */
    int32_t nk;        /* water-filling: channels of K crossing it */
    uint32_t kgen;     /* in the resources K crosses in pass kgen */
    uint32_t xgen;     /* all its channels joined K in pass kgen */
    bool bind;         /* the last filling over it froze a channel at its level */
    bool bnew;         /* the same, in the pass under way */
    bool watch;        /* a candidate of every pass over it: it binds or is nearly full */
    uint32_t cgen;     /* a candidate of pass cgen (wgen) */
    double flow;       /* at least the sum of its channels' rates, kept while two or more cross it (share.c) */
    double dflow;      /* the rise of flow a pass would bring (scratch of pass dgen) */
    uint32_t dgen;
    int32_t capfl;
    int32_t apos;      /* position in the active-resource list, -1 when idle */
    double bytes;      /* wire bytes carried */
    double payload;    /* payload bytes carried */
    double load;       /* sum of the current rates of its channels */
    uint8_t kind;
    int8_t noc, dir;
    int16_t x, y;      /* NoC position (links: the router it leaves) */
    int32_t bank;
} sim_res;

/* One step of a route, as a tree (a multicast branches): the resource, the
 * stage it hangs from, and the latency a byte spends after leaving it
 * before it reaches the children (or, for a leaf, the destination). */
typedef struct sim_stage {
    int32_t res, parent;
    double lat;
    bool leaf;
} sim_stage;

typedef enum sim_xkind {
    SIM_X_READ,     /* DRAM bank -> core */
    SIM_X_WRITE,    /* core -> DRAM bank */
    SIM_X_SEND,     /* core -> core */
    SIM_X_MCAST,    /* core -> rectangle of cores */
    SIM_X_SEM_INC,  /* core -> core, header only: a remote atomic add */
    SIM_X_SEM_MCAST,/* core -> rectangle, header only: a semaphore store */
} sim_xkind;

/* What to move: the NoC, who issues (a channel key: transfers with the same
 * issuer, kind and endpoints are served in order), where from and to. */
typedef struct sim_xspec {
    sim_xkind kind;
    int noc;
    int32_t owner;        /* issuing engine (any id < nowners) */
    arch_xy src;          /* NoC position of the issuing core */
    arch_xy dst;          /* SEND/SEM_INC: NoC position of the destination core */
    int bank;             /* READ/WRITE */
    arch_xy r0, r1;       /* MCAST/SEM_MCAST: NoC rectangle, r0 <= r1 */
    const arch_xy *dests; /* MCAST/SEM_MCAST: NoC positions of the receiving cores */
    int ndests;
    double payload;       /* bytes */
} sim_xspec;

/* A channel: the in-order queue of transfers one issuer sends over one
 * route. It is one flow of the fluid model while its head transfer moves. */
typedef struct sim_chan {
    /* the water-filling's fields first, together (share.c) */
    int32_t *res;         /* resources of the route (deduplicated) */
    int32_t nres;
    uint32_t wgen;        /* water-filling: frozen in pass wgen */
    uint32_t kgen;        /* in the set K of pass kgen (share.c) */
    uint64_t look;        /* route positions below 64 a pass looks at (share.c) */
    int32_t apos;         /* position in the active list, -1 when not moving */
    double rate;          /* current fair share, bytes/cycle (0 when not moving) */
    double newrate;
    double remaining;     /* wire bytes of the head transfer left at tset */
    double tset;
    int32_t ev;
    int32_t capres;
    int32_t *slot;        /* index of this channel in each resource's list */
    int32_t key[8];       /* kind, noc, owner, endpoints */
    double tail;          /* latency from the source to the farthest destination */
    double ack;           /* latency of the acknowledgement back to the issuer */
    double bytes, payload;/* carried so far, flushed into the resources at release */
    int32_t head, last;   /* FIFO of transfers */
    int32_t next_free;
    bool live;
} sim_chan;

/* One transfer. The network fills the timing fields; `u` is for whoever
 * issued it (core.c keeps what to copy and whom to wake there). */
typedef struct sim_xfer {
    int32_t ev;
    int32_t chan, next;
    int32_t owner;
    double ready;         /* its first byte may leave the source */
    double wire, payload; /* bytes on the wire (with packet headers), payload */
    double t_issue, t_arrive;
    double ack;           /* latency from arrival until the issuer sees completion */
    int phase;            /* 0 queued/moving, 1 arrived (ack pending) */
    uint8_t kind;
    int32_t next_free;
    struct {
        int32_t core, cb, page, n;   /* source (core) or destination (read) pages */
        int32_t dcore, dcb, dat;     /* destination core/cb and page offset */
        int32_t tensor, tpage;       /* DRAM tile */
        int32_t x0, y0, x1, y1;      /* multicast rectangle (logical cores) */
        int32_t sem;
        int64_t value;
        bool loopback;
        bool elems;                  /* read/write_elems: w elements of one row */
        uint8_t trid;                /* reads: the transaction id they carry (0: untagged) */
        uint8_t tr, tc, br, bc, w;   /* at (tr, tc) of the tensor tile, (br, bc) of the CB page */
    } u;
} sim_xfer;

typedef struct sim_net sim_net;
typedef void (*sim_xfer_fn)(void *ctx, int32_t x);
typedef void (*sim_load_fn)(void *ctx, int32_t res, double load);

struct sim_net {
    const arch_desc *a;
    sim_queue *q;
    int W, H;             /* NoC grid */
    bool torus;
    double flit;          /* bytes per flit = link bytes per cycle */
    sim_res *res;
    int32_t nres;
    int32_t link0, niu_out0, niu_in0, mcast0, bank_rd0, bank_wr0; /* first id of each kind */
    sim_chan *ch;
    int32_t nch, capch, free_ch;
    sim_xfer *xf;
    int32_t nxf, capxf, free_xf;
    int32_t *active;      /* moving channels */
    int32_t nactive, capactive;
    int32_t *ares;        /* resources with at least one moving channel */
    int32_t nares;
    sim_wslot *wcand;     /* water-filling candidates: resources (>= 0), channels (-c-1) */
    int32_t nwlow, whi, wend, capwcand; /* [0, nwlow) keyed <= wcut; [whi, wend) above */
    double wcut;          /* the pass's cut between the two */
    double wlast;         /* the last pass's highest level */
    uint32_t wgen;
    int32_t nfrozen;      /* channels of K given their rate in this pass */
    bool dirty;           /* the set of moving channels changed since the last rates */
    bool full;            /* refill every moving channel each time (tests) */
    /* share.c: what changed since the last rates, and the set K refilled */
    int32_t *seed_ch;     /* channels that started moving */
    int32_t nseed_ch, capseed_ch;
    int32_t *seed_res;    /* binding resources a channel stopped crossing */
    int32_t nseed_res, capseed_res;
    int32_t *kch;         /* K's channels */
    double *kpcap;        /* per K channel: its private cap, -1 when none */
    int32_t *kchg;        /* K's channels the last filling froze at a new rate */
    int32_t nkchg;
    int32_t nkch, capkch, kdone;
    int32_t *kres;        /* resources K's channels cross (nres entries) */
    int32_t nkres;
    uint32_t kgen;
    int32_t *rise;        /* resources left out of a pass whose flow would rise (nres) */
    uint32_t dgen;
    uint64_t recomputes;
    /* channels per owner, to find the one a transfer joins */
    int32_t nowners;
    int32_t **own;
    int32_t *nown, *capown;
    /* route scratch */
    sim_stage *st;
    int32_t nst, capst;
    int32_t *mark;        /* per resource: stage index + 1 in the route being built */
    /* callbacks */
    void *ctx;
    sim_xfer_fn on_arrive;/* the data (or semaphore) reached its destination(s) */
    sim_xfer_fn on_done;  /* the issuer learnt of completion (after the ack) */
    sim_load_fn on_load;  /* a resource's load changed (trace counters); may be NULL */
};

void sim_net_init(sim_net *n, const arch_desc *a, sim_queue *q, int nowners);
void sim_net_free(sim_net *n);
/* Issue a transfer whose command left the RISC-V at time t (>= now). */
int32_t sim_net_issue(sim_net *n, const sim_xspec *s, double t);
/* Event handlers (dispatched by the loop). */
void sim_net_chan_event(sim_net *n, int32_t c);
void sim_net_xfer_event(sim_net *n, int32_t x);
/* share.c: recompute the fair shares if the set of moving channels
 * changed, over what the change can reach; started/ended record a channel
 * that starts moving and each resource one stops crossing (at the rate it
 * had). */
void sim_net_update(sim_net *n);
void sim_share_started(sim_net *n, int32_t c);
void sim_share_ended(sim_net *n, int32_t r, double rate);
/* share.c: channel c joined the resource at position k of its route (its
 * positions joined in order); a channel left resource r. */
void sim_share_joined(sim_net *n, int32_t c, int k);
void sim_share_left(sim_net *n, int32_t r);
/* Flush per-channel byte counts into the resources (before reporting). */
void sim_net_flush(sim_net *n);
/* Route of a spec as stages (into n->st); returns the stage count. */
int sim_net_route(sim_net *n, const sim_xspec *s);
/* Channel key of a transfer: equal keys are served in order. */
void sim_net_key(const sim_net *n, const sim_xspec *s, int32_t key[8]);
/* Latency from issue until a read's data can leave the bank (request
 * packet plus DRAM access); 0 for other kinds. */
double sim_net_req(const sim_net *n, const sim_xspec *s);
/* Latency of the acknowledgement after arrival. */
double sim_net_ack(const sim_net *n, const sim_xspec *s);
/* Latency from source to the farthest leaf of the route in n->st. */
double sim_net_tail(const sim_net *n, int nstages);
/* Wire bytes of a payload: each packet of at most max_packet_bytes carries
 * header_flits flits of header. */
double sim_net_wire_bytes(const arch_desc *a, double payload);
/* Pipeline latency of a path of `hops` links. */
double sim_net_path_lat(const arch_desc *a, int hops);
/* Hop count from a to b on a NoC (dimension order, torus-aware). */
int sim_net_hops(const sim_net *n, int noc, arch_xy a, arch_xy b);
/* Describe a resource for reports: "noc0 link (3,4)->E", "bank 5 read". */
void sim_net_res_name(const sim_net *n, int32_t r, char *buf, size_t len);

/* dram.c */
/* NoC position of bank b's endpoint as seen from `noc`. */
arch_xy sim_dram_pos(const arch_desc *a, int bank, int noc);
/* Bank of page `page` of a tensor interleaved from first_bank. */
int sim_dram_bank(const arch_desc *a, int first_bank, int64_t page);
void sim_dram_add_resources(sim_net *n);

/* ==== pktref.c: the flit-level reference =================================== */

/* A transfer for the reference: same spec as the fluid model, issued at t. */
typedef struct sim_pkt_xfer {
    sim_xspec spec;
    double t_issue;
    double t_done;   /* out: when the issuer sees completion (as on_done) */
    double t_arrive; /* out: when the last byte reached the farthest destination */
} sim_pkt_xfer;
/* Run the transfers flit by flit with per-flow virtual channels, credit
 * flow control and round-robin arbitration at every resource. For small
 * cases only (it steps every cycle). Returns false if it did not finish
 * within max_cycles. */
bool sim_pktref_run(const arch_desc *a, sim_pkt_xfer *xs, int n, double max_cycles);
/* The same transfers through the fluid model alone (sets t_arrive and
 * t_done); returns the number of rate recomputations. `full` refills every
 * moving flow at each change instead of what the change can reach. */
uint64_t sim_fluid_run(const arch_desc *a, sim_pkt_xfer *xs, int n, bool full);

/* ==== core.c / compute.c / sim.c: the machine ============================== */

typedef enum sim_ins_kind { SIM_I_OP, SIM_I_FOR, SIM_I_END } sim_ins_kind;

/* A kernel flattened: loops become a header and an end that jump. */
typedef struct sim_ins {
    uint8_t kind;
    int16_t depth;       /* loop nesting level of a FOR/END */
    int32_t jump;        /* FOR: index after its END; END: first body index */
    const df_stmt *s;
} sim_ins;

typedef struct sim_code {
    sim_ins *ins;
    int32_t n;
    int depth;           /* deepest loop nesting */
} sim_code;

typedef enum sim_block {
    SIM_B_NONE,
    SIM_B_CB_FRONT,      /* cb_wait: pages at the front */
    SIM_B_CB_BACK,       /* cb_reserve: free pages at the back */
    SIM_B_SEM,           /* sem_wait */
    SIM_B_READS,         /* read_barrier */
    SIM_B_WRITES,        /* write_barrier */
    SIM_B_SRC,           /* unpack: source registers full (math behind) */
    SIM_B_UNPACKED,      /* math: nothing unpacked yet */
    SIM_B_DST,           /* math: both Dst halves held (pack behind) */
    SIM_B_PACKQ,         /* pack: no Dst half committed yet */
} sim_block;

typedef enum sim_estate { SIM_ES_RUN, SIM_ES_SLEEP, SIM_ES_BLOCKED, SIM_ES_DONE } sim_estate;

/* A chunk of a compute op: what unpack hands to math and math to pack. */
typedef struct sim_chunk {
    const df_stmt *s;    /* the op (consistency check between the stages) */
    int ntiles;          /* output tiles */
    int32_t out[16];     /* output page offsets from the pack's write pointer */
    bool acc;            /* packer L1 accumulation */
    bool front;          /* out[] are offsets from the read pointer (pages in place at the front) */
    int cb_sum;          /* pchain: the CB each tile is also added into (-1: none) */
    int32_t sum[16];     /* its page offsets from that CB's write pointer */
    bool sum_set[16];    /* the tile overwrites that page (the first of its row) instead of adding */
    double math, pack;   /* cycles */
    int steps;           /* units math takes from the source registers one after the other
                            (a matmul's K tiles, else the input tiles) */
    double u_first, u_end; /* when unpack has put the first unit there, and the last */
    int buf;             /* functional: index of the core's chunk buffer */
    double flops;
} sim_chunk;

typedef struct sim_engine {
    int32_t ev;
    int32_t core;
    uint8_t kind;        /* sim_engine_kind */
    int8_t noc;          /* data-movement engines: the NoC they use */
    sim_estate state;
    const sim_code *code;
    int32_t pc;
    int64_t *slots;
    int64_t *hi, *step;  /* per loop level */
    int phase;           /* of the current op: 0 not started, 1 sleeping on its cost */
    int sub;             /* chunk index within a multi-chunk op */
    int nsub;
    sim_block block;
    int block_arg;       /* CB id or semaphore */
    int64_t block_need;  /* pages or semaphore value awaited */
    double t_op;         /* when the current op started (after blocking) */
    double t_block;      /* when it blocked */
    double busy;
    double t_done;       /* when it finished its kernel */
    int32_t nreads, nwrites; /* outstanding NoC transactions */
    int32_t nreads_id[DF_MAX_TRID + 1]; /* outstanding reads by transaction id (0: untagged) */
    int32_t *cbmap;      /* compute: the CB each id names after cb_swaps (NULL: itself) */
    sim_chunk cur;       /* compute: the chunk in hand */
    const df_stmt *cfg;  /* compute: the op this thread was last configured for */
    double t_free;       /* when its last busy stretch ended */
    int64_t n_ops;
} sim_engine;

typedef struct sim_cbs {
    bool used;
    arch_format format;
    int64_t pages, bytes;/* capacity; bytes of one page */
    int64_t count;       /* pages pushed and not popped */
    int64_t rd, wr;      /* front and back page indices (mod pages) */
    uint8_t waiters;     /* engines blocked on it (bit per engine kind) */
    float *data;         /* functional: pages x tile elements */
    int32_t *landing;    /* per page: DRAM reads into it still in flight */
    int64_t pushes, pops;        /* cb_push and cb_pop ops done */
    int64_t pushed, popped;      /* pages they moved */
} sim_cbs;

enum { SIM_NBUF = 4, SIM_SRCQ = 2 };

typedef struct sim_core {
    int x, y;            /* logical */
    arch_xy noc;         /* NoC 0 position */
    int cls;
    sim_cbs *cb;         /* arch num_cbs entries */
    int64_t *sem;
    uint8_t *sem_waiters;
    int32_t eng[SIM_NENGINES];
    /* compute pipeline: unpacked chunks (source registers), Dst halves */
    sim_chunk srcq[SIM_SRCQ];
    int nsrc, src_head;
    sim_chunk dstq[2];   /* committed halves waiting for pack */
    int ndst, dst_head;
    int dst_held;        /* halves acquired by math or waiting for / in pack */
    float *buf[SIM_NBUF];/* functional chunk buffers (Dst contents) */
    bool buf_used[SIM_NBUF];
} sim_core;

typedef struct sim_tensor_data {
    float *pages;        /* functional: pages x tile elements, tile-major */
    int64_t tr, tc;      /* tiles */
} sim_tensor_data;

typedef struct sim {
    const df_program *p;
    const arch_desc *a;
    const sim_options *o;
    lm_diag *d;
    bool functional;
    sim_queue q;
    sim_net net;
    sim_code (*code)[DF_NKERNELS]; /* per class */
    sim_core *cores;
    int ncores;
    int *core_at;        /* logical (x, y) -> core index or -1 */
    arch_xy *dests;      /* scratch: NoC positions of a multicast's receivers */
    sim_engine *eng;
    int neng;
    sim_tensor_data *tens;
    int dst_cap16, dst_cap32;
    bool failed;         /* a run-time error was reported */
    double flops;
    double t_end;
    double t_last;       /* last arrival of data or a semaphore update */
    uint64_t max_events;
    uint64_t ninstr, max_instr; /* interpreted ops, and their budget (4 per event) */
    double max_cycles;
    sim_trace *trace;
    lm_arena arena;
} sim;

/* The CB that id names on engine e: each compute thread keeps its own
 * names, as each of the three RISC-Vs keeps its kernel's variables, and
 * all three swap them at the same point of the kernel. */
static inline int sim_cb_id(const sim_engine *e, int id) { return e->cbmap && id >= 0 ? e->cbmap[id] : id; }

/* engine.c */
/* Report an error at a statement and stop the run. */
void sim_fail(sim *s, const df_stmt *st, const char *fmt, ...) LM_PRINTF(3, 4);

/* core.c */
void sim_core_setup(sim *s);
void sim_engine_run(sim *s, int32_t e);
void sim_xfer_arrived(void *ctx, int32_t x);
void sim_xfer_done(void *ctx, int32_t x);
/* Describe what a blocked engine waits on (deadlock report). */
void sim_describe_wait(sim *s, const sim_engine *e, lm_buf *b);

/* compute.c */
/* Number of chunks op `st` splits into; 0 after reporting an error. */
int sim_compute_nchunks(sim *s, sim_engine *e, const df_stmt *st);
double sim_compute_init(sim *s, sim_engine *e, const df_stmt *st);
/* Unpack cycles and the chunk (math/pack cycles, output pages) of chunk j;
 * in functional mode also its values into a chunk buffer. */
double sim_compute_unpack(sim *s, sim_engine *e, const df_stmt *st, int j, sim_chunk *c);
/* Pack: write the chunk's tiles to the output CB at its write pointer. */
void sim_compute_pack(sim *s, sim_engine *e, const sim_chunk *c, int cb_out);

/* trace.c */
/* A run's part of the trace: its cores' processes, then its events; at
 * its end, its slice on the launches thread, and the next run after it. */
void sim_trace_run_begin(sim_trace *t, sim *s);
void sim_trace_run_end(sim_trace *t, double t_end, const char *name);
void sim_trace_op(sim_trace *t, const sim_engine *e, const char *name, double t0, double t1,
                  const df_stmt *st);
void sim_trace_load(void *ctx, int32_t res, double load);
/* A flow arrow from the engine that issued core-to-core transfer X (at its
 * issue) to the reader of destination core dcore (now, at its arrival). */
void sim_trace_flow(sim_trace *t, const sim *s, const sim_xfer *X, int dcore);

/* report.c */
sim_result *sim_report(sim *s);

#endif
