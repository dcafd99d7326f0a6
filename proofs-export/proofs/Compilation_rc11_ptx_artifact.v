(* Compilation_rc11_ptx_artifact.v -- hand-written, NOT generated.

   Lemmas about the generated statement of mappings/rc11-ptx-artifact.map
   (Obligations_rc11_ptx_artifact.v): what a [compilation Ps Pt Xs Xt] gives about the
   source execution Xs and the target execution Xt -- the first steps of a proof of
   [obligation_rc11_scoped_ax_Atomicity].

   The test suite compiles this file against a fresh export
   (mapcheck export-coq mappings/rc11-ptx-artifact.map). When the generated statement
   changes, regenerate the export and fix this file.

   Two things about the statement shape every lemma here:

   1. Double negations. The statement writes each inclusion "a <= b" as
      [set_empty (set_minus a b)] or [empty (minus r s)]. Without an axiom that gives only
      [~ ~ b x] from [a x], never [b x]. So the transfer lemmas conclude [~ ~ ...]. The
      obligations are negative ([empty], [irreflexive], [acyclic]), so a proof of them can
      remove the [~ ~] (see [nn_bind]). The helpers for reasoning under a double negation
      ([nn_ret], [nn_bind], [nn_incl], ...) are in Program.v, next to [runs_transport].

   2. The target skeleton is well formed. Writing this file showed that nothing in
      [compilation] said so ([searched] gives [wf_consistent (pr Ps)], [c_wf_t] is about Xt):
      the labels of [pr Pt] could lie outside [E (pr Pt)], so that a source event need not be
      a target event. With message passing that made a claim false with no counterexample.
      [guards_compiled] now says it (its first conjunct); [Tlab] below is that fact. *)
From Mapcheck Require Import Rel Dec Checks Exec Model_wf Mirror_wf Program Model_rc11_scoped Mirror_rc11_scoped Model_ptx_v6 Obligations_rc11_ptx_artifact.

(* ------------------------------------------------------------------ *)
(* Events and labels (the export's projections [wf_consistent_<axiom>] and [exec_of_<field>]
   take single conjuncts out of wf.cat and exec_of)                    *)

(* An event with one of the kind labels R, W, F, IW, RMW is an event (doubly negated). *)
Lemma labelled_in_events : forall X x, wf_ax_labels_in_events X ->
  R X x \/ W X x \/ F X x \/ IW X x \/ RMW X x -> ~ ~ E X x.
Proof.
  intros X x H L N. apply (H x). split; [|exact N]. cbv [set_union]. tauto.
Qed.

(* A pair in po lies in the events (doubly negated). *)
Lemma po_in_events : forall X a b, wf_consistent X -> po X a b -> ~ ~ (E X a /\ E X b).
Proof.
  intros X a b Hwf P N. apply (wf_consistent_relations_in_events X Hwf a b). split; [|exact N]. cbv [union]. tauto.
Qed.


(* ------------------------------------------------------------------ *)

Section Facts.
Variables (Ps Pt : program) (Xs Xt : exec).
Hypothesis C : compilation Ps Pt Xs Xt.


(* ---- What [searched Ps] gives: the source skeleton ---- *)

Lemma Ps_wf : wf_consistent (pr Ps).
Proof. destruct (c_searched _ _ _ _ C) as (Wf & _). exact Wf. Qed.

Lemma Ps_finite : set_finite (E (pr Ps)).
Proof. destruct (c_searched _ _ _ _ C) as (_ & Fin & _). exact Fin. Qed.

(* The two executions: executions of the skeletons, and well formed. *)
Lemma Xs_of : exec_of (pr Ps) Xs.
Proof. exact (proj1 (c_runs_s _ _ _ _ C)). Qed.
Lemma Xt_of : exec_of (pr Pt) Xt.
Proof. exact (proj1 (c_runs_t _ _ _ _ C)). Qed.
Lemma Xs_wf : wf_consistent Xs.
Proof. exact (c_wf_s _ _ _ _ C). Qed.
Lemma Xt_wf : wf_consistent Xt.
Proof. exact (c_wf_t _ _ _ _ C). Qed.

(* A guard read is a read po-before its event. *)
Lemma Ps_gread_po : empty (minus (gread Ps) (seq (id_on (R (pr Ps))) (po (pr Ps)))).
Proof. destruct (c_searched _ _ _ _ C) as (_ & _ & _ & _ & Gr & _). exact Gr. Qed.

(* A guard write is a write (to the location of the guard read). *)
Lemma Ps_gwrite_shape : empty (minus (seq (gwrite Ps) (inv (gread Ps)))
  (minus (inter (cross (W (pr Ps)) (R (pr Ps))) (loc (pr Ps))) (inv (rmw (pr Ps))))).
Proof. destruct (c_searched _ _ _ _ C) as (_ & _ & _ & _ & _ & Gw & _). exact Gw. Qed.

(* An event with a guard write has a guard read. *)
Lemma Ps_gwrite_gread : set_empty (set_minus (range (gwrite Ps)) (range (gread Ps))).
Proof. destruct (c_searched _ _ _ _ C) as (_ & _ & _ & _ & _ & _ & _ & _ & [_ G] & _). exact G. Qed.

(* ---- What [compiles Ps Pt] gives ---- *)

Lemma low : lowering (pr Ps) (pr Pt).
Proof. destruct (c_compiles _ _ _ _ C) as [L _]. exact L. Qed.

Lemma gc : guards_compiled (pr Ps) (pr Pt) (gread Ps) (gwrite Ps) (gread Pt) (gwrite Pt).
Proof. destruct (c_compiles _ _ _ _ C) as [_ G]. exact G. Qed.

(* The target skeleton's labels lie in its events (see the header). *)
Lemma Tlab : wf_ax_labels_in_events (pr Pt).
Proof. destruct gc as (Wf & _). exact (wf_consistent_labels_in_events _ Wf). Qed.

(* Shared events of the two skeletons. *)
Definition shared : set := set_inter (E (pr Ps)) (E (pr Pt)).

(* Guard reads and writes of shared events agree between the programs (doubly negated). *)
Lemma gread_s_t : forall r e, shared e -> gread Ps r e -> ~ ~ gread Pt r e.
Proof.
  intros r e S G. destruct gc as (_ & Grs & _). apply (nn_incl _ _ r e Grs). exists e. split; [exact G | split; auto].
Qed.
Lemma gread_t_s : forall r e, shared e -> gread Pt r e -> ~ ~ gread Ps r e.
Proof.
  intros r e S G. destruct gc as (_ & _ & Grt & _). apply (nn_incl _ _ r e Grt). exists e. split; [exact G | split; auto].
Qed.
Lemma gwrite_s_t : forall w e, shared e -> gwrite Ps w e -> ~ ~ gwrite Pt w e.
Proof.
  intros w e S G. destruct gc as (_ & _ & _ & _ & _ & _ & Gws & _). apply (nn_incl _ _ w e Gws).
  exists e. split; [exact G | split; auto].
Qed.
Lemma gwrite_t_s : forall w e, shared e -> gwrite Pt w e -> ~ ~ gwrite Ps w e.
Proof.
  intros w e S G. destruct gc as (_ & _ & _ & _ & _ & _ & _ & Gwt & _). apply (nn_incl _ _ w e Gwt).
  exists e. split; [exact G | split; auto].
Qed.

(* Every source skeleton event is an initial write or in a class, and a class's target
   instruction has the class's kind: so each source skeleton event is an initial write of
   both skeletons, a read or a write of both, an RMW half, or a fence of both. *)
Lemma source_event_kind : forall e, E (pr Ps) e ->
  ~ ~ ((IW (pr Ps) e /\ IW (pr Pt) e) \/ (R (pr Ps) e /\ R (pr Pt) e) \/
       (W (pr Ps) e /\ W (pr Pt) e) \/ (RMW (pr Ps) e /\ RMW (pr Pt) e) \/
       (F (pr Ps) e /\ F (pr Pt) e)).
Proof.
  intros e Ee. pose proof low as L. unfold lowering in L.
  repeat match goal with H : _ /\ _ |- _ => destruct H end.
  match goal with H : set_empty (set_minus (E (pr Ps)) _) |- _ =>
    apply (nn_bind _ _ (nn_set_incl _ _ e H Ee)) end.
  intro U. repeat match goal with H : set_union _ _ e |- _ => destruct H as [H|H] end;
  match goal with
  | H : ?c (pr Ps) e, Hc : set_empty (set_minus (?c (pr Ps)) ?o) |- _ =>
      apply (nn_bind _ _ (nn_set_incl _ _ e Hc H)); intro Ho; apply nn_ret;
      cbv beta delta in H, Ho; tauto
  end.
Qed.

(* Every source skeleton event is a target skeleton event (doubly negated). *)
Lemma source_skeleton_in_target : forall e, E (pr Ps) e -> ~ ~ E (pr Pt) e.
Proof.
  intros e Ee. apply (nn_bind _ _ (source_event_kind e Ee)).
  intros K. apply (labelled_in_events _ _ Tlab). tauto.
Qed.

(* ---- Transport: the shared events are present in both executions alike ---- *)

(* An event of the source skeleton is in Xs exactly when it is in Xt (doubly negated):
   [runs_transport] (Program.v) over the shared events. Its hypotheses are the facts above;
   a guard write of the source is a write of the skeleton by the shape of guard writes. *)
Lemma shared_events_agree : forall e, E (pr Ps) e -> ~ ~ (E Xs e <-> E Xt e).
Proof.
  pose proof Ps_wf as Wf.
  apply (runs_transport Ps Pt Xs Xt shared Ps_finite (wf_consistent_po_irreflexive _ Wf)).
  - intros a b c Ab Bc. apply (nn_incl _ _ a c (wf_consistent_po_transitive _ Wf)). exists b. auto.
  - intros a b P. exact (po_in_events _ _ _ Wf P).
  - intros r e G. apply (nn_bind _ _ (nn_incl _ _ r e Ps_gread_po G)).
    intros (z & [_ <-] & P). apply nn_ret, P.
  - intros w e G. apply (nn_bind _ _ (nn_set_incl _ _ e Ps_gwrite_gread (ex_intro _ w G))).
    intros [r Gr]. apply (nn_bind _ _ (nn_incl _ _ w r Ps_gwrite_shape (ex_intro _ e (conj G Gr)))).
    intros [[[Ww _] _] _]. apply (labelled_in_events _ _ (wf_consistent_labels_in_events _ Wf)). tauto.
  - intros e Pe. apply (nn_bind _ _ (source_skeleton_in_target e Pe)). intro Te. apply nn_ret. split; assumption.
  - intros e [_ Te]. exact Te.
  - exact gread_s_t.
  - exact gread_t_s.
  - exact gwrite_s_t.
  - exact gwrite_t_s.
  - exact (c_lift_rf _ _ _ _ C).
  - exact (c_runs_s _ _ _ _ C).
  - exact (c_runs_t _ _ _ _ C).
Qed.

(* 1. Every event of Xs is an event of Xt (doubly negated). *)
Lemma source_events_in_target : forall e, E Xs e -> ~ ~ E Xt e.
Proof.
  intros e Es.
  apply (nn_bind _ _ (shared_events_agree e (exec_of_E _ _ Xs_of e Es))). intro Iff.
  apply nn_ret, Iff, Es.
Qed.

(* ---- Static relations: a pair of Xs related by rmw, po, loc or int is so related in Xt ---- *)

(* The lowering's "`f` of the source skeleton between shared events is `f` of the target
   skeleton", for the relations f the lowering names. *)
Lemma low_rmw : empty (minus (inter (rmw (pr Ps)) (cross shared shared)) (rmw (pr Pt))).
Proof. pose proof low as L. unfold lowering in L. unfold shared. tauto. Qed.
Lemma low_po : empty (minus (inter (po (pr Ps)) (cross shared shared)) (po (pr Pt))).
Proof. pose proof low as L. unfold lowering in L. unfold shared. tauto. Qed.
Lemma low_loc : empty (minus (inter (loc (pr Ps)) (cross shared shared)) (loc (pr Pt))).
Proof. pose proof low as L. unfold lowering in L. unfold shared. tauto. Qed.
Lemma low_int : empty (minus (inter (int (pr Ps)) (cross shared shared)) (int (pr Pt))).
Proof. pose proof low as L. unfold lowering in L. unfold shared. tauto. Qed.

(* A relation that [exec_of] cuts from the skeleton and that the lowering carries between
   shared events goes from Xs to Xt: both ends are events of Xs, hence of both skeletons
   and of Xt. *)
Lemma lift_rel : forall f : exec -> rel,
  (forall P X, exec_of P X -> same_rel (f X) (inter (f P) (cross (E X) (E X)))) ->
  empty (minus (inter (f (pr Ps)) (cross shared shared)) (f (pr Pt))) ->
  forall a b, f Xs a b -> ~ ~ f Xt a b.
Proof.
  intros f Hf Hl a b H. pose proof Xs_of as Os. pose proof Xt_of as Ot.
  destruct (proj1 (Hf _ _ Os) a b H) as [Fp [Ea Eb]].
  pose proof (exec_of_E _ _ Os a Ea) as Pa. pose proof (exec_of_E _ _ Os b Eb) as Pb.
  apply (nn_bind _ _ (source_skeleton_in_target a Pa)). intro Ta.
  apply (nn_bind _ _ (source_skeleton_in_target b Pb)). intro Tb.
  apply (nn_bind _ _ (nn_incl _ _ a b Hl (conj Fp (conj (conj Pa Ta) (conj Pb Tb))))). intro Ft.
  apply (nn_bind _ _ (source_events_in_target a Ea)). intro Xa.
  apply (nn_bind _ _ (source_events_in_target b Eb)). intro Xb.
  apply nn_ret. apply (proj2 (Hf _ _ Ot)). split; [exact Ft | split; assumption].
Qed.

(* 2. rmw of Xs is rmw of Xt (doubly negated). *)
Lemma rmw_in_target : forall a b, rmw Xs a b -> ~ ~ rmw Xt a b.
Proof. apply lift_rel; [exact exec_of_rmw | exact low_rmw]. Qed.

(* 3. The same for loc, po and int. *)
Lemma loc_in_target : forall a b, loc Xs a b -> ~ ~ loc Xt a b.
Proof. apply lift_rel; [exact exec_of_loc | exact low_loc]. Qed.

Lemma po_in_target : forall a b, po Xs a b -> ~ ~ po Xt a b.
Proof. apply lift_rel; [exact exec_of_po | exact low_po]. Qed.

Lemma int_in_target : forall a b, int Xs a b -> ~ ~ int Xt a b.
Proof. apply lift_rel; [exact exec_of_int | exact low_int]. Qed.

(* ---- Kinds: a write (read) of Xs is a write (read) of Xt ---- *)

(* An RMW event of an execution is the read of an rmw pair or the write of one. *)
Lemma rmw_half : forall X x, wf_consistent X -> RMW X x ->
  ~ ~ ((exists y, rmw X x y) \/ (exists y, rmw X y x)).
Proof.
  intros X x Wf K N. apply (wf_consistent_RMW_def _ Wf x). left. split; [exact K|]. intro D. apply N. exact D.
Qed.

(* The two ends of an rmw pair are a read and a write (doubly negated). *)
Lemma rmw_ends : forall X a b, wf_consistent X -> rmw X a b -> ~ ~ (R X a /\ W X b).
Proof.
  intros X a b Wf H. apply (nn_bind _ _ (nn_incl _ _ a b (wf_consistent_rmw_shape _ Wf) H)).
  intros [[Ra Wb] _]. apply nn_ret. split; assumption.
Qed.

(* No event is both a read and a write, or a fence and a read or write. *)
Lemma kinds_RW : forall X x, wf_consistent X -> R X x -> W X x -> False.
Proof. intros X x Wf Rx Wx. apply (wf_consistent_kinds_disjoint _ Wf x). cbv [set_union set_inter]. tauto. Qed.
Lemma kinds_FW : forall X x, wf_consistent X -> F X x -> W X x -> False.
Proof. intros X x Wf Fx Wx. apply (wf_consistent_kinds_disjoint _ Wf x). cbv [set_union set_inter]. tauto. Qed.
Lemma kinds_FR : forall X x, wf_consistent X -> F X x -> R X x -> False.
Proof. intros X x Wf Fx Rx. apply (wf_consistent_kinds_disjoint _ Wf x). cbv [set_union set_inter]. tauto. Qed.

(* 4a. A write of Xs is a write of Xt (doubly negated). Initial writes are initial writes of
   Xt, hence writes (wf of Xt); plain writes are writes of the target skeleton by the
   lowering; the write half of an RMW is the end of an rmw pair of Xs, hence of Xt. *)
Lemma writes_in_target : forall e, W Xs e -> ~ ~ W Xt e.
Proof.
  intros e Ws.
  pose proof Xs_of as Os. pose proof Xt_of as Ot. pose proof Xs_wf as WfS. pose proof Xt_wf as WfT.
  destruct (proj1 (exec_of_W _ _ Os) e Ws) as [Wp Es].
  pose proof (exec_of_E _ _ Os e Es) as Pe.
  apply (nn_bind _ _ (source_events_in_target e Es)). intro Et.
  apply (nn_bind _ _ (source_event_kind e Pe)).
  intros [[_ It]|[[Rp _]|[[_ Wt]|[[Mp _]|[Fp _]]]]].
  - (* initial write *)
    apply (nn_set_incl _ _ e (wf_consistent_IW_writes _ WfT)). apply (proj2 (exec_of_IW _ _ Ot)). split; assumption.
  - (* a read of the source skeleton: impossible *)
    intros _. exact (kinds_RW _ e Ps_wf Rp Wp).
  - (* a plain write *)
    apply nn_ret. apply (proj2 (exec_of_W _ _ Ot)). split; assumption.
  - (* an RMW half *)
    apply (nn_bind _ _ (rmw_half Xs e WfS (proj2 (exec_of_RMW _ _ Os) e (conj Mp Es)))).
    intros [[b D]|[a D]].
    + apply (nn_bind _ _ (rmw_ends _ _ _ WfS D)). intros [Re _]. intros _. exact (kinds_RW _ e WfS Re Ws).
    + apply (nn_bind _ _ (rmw_in_target a e D)). intro Dt.
      apply (nn_bind _ _ (rmw_ends _ _ _ WfT Dt)). intros [_ Wt]. apply nn_ret, Wt.
  - (* a fence: impossible *)
    intros _. exact (kinds_FW _ e Ps_wf Fp Wp).
Qed.

(* 4b. A read of Xs is a read of Xt (doubly negated), in the same way. *)
Lemma reads_in_target : forall e, R Xs e -> ~ ~ R Xt e.
Proof.
  intros e Rs.
  pose proof Xs_of as Os. pose proof Xt_of as Ot. pose proof Xs_wf as WfS. pose proof Xt_wf as WfT.
  destruct (proj1 (exec_of_R _ _ Os) e Rs) as [Rp Es].
  pose proof (exec_of_E _ _ Os e Es) as Pe.
  apply (nn_bind _ _ (source_events_in_target e Es)). intro Et.
  apply (nn_bind _ _ (source_event_kind e Pe)).
  intros [[Ip _]|[[_ Rt]|[[Wp _]|[[Mp _]|[Fp _]]]]].
  - (* an initial write of the source skeleton: impossible *)
    apply (nn_bind _ _ (nn_set_incl _ _ e (wf_consistent_IW_writes _ Ps_wf) Ip)). intros Wp _.
    exact (kinds_RW _ e Ps_wf Rp Wp).
  - (* a plain read *)
    apply nn_ret. apply (proj2 (exec_of_R _ _ Ot)). split; assumption.
  - (* a write: impossible *)
    intros _. exact (kinds_RW _ e Ps_wf Rp Wp).
  - (* an RMW half *)
    apply (nn_bind _ _ (rmw_half Xs e WfS (proj2 (exec_of_RMW _ _ Os) e (conj Mp Es)))).
    intros [[b D]|[a D]].
    + apply (nn_bind _ _ (rmw_in_target e b D)). intro Dt.
      apply (nn_bind _ _ (rmw_ends _ _ _ WfT Dt)). intros [Rt _]. apply nn_ret, Rt.
    + apply (nn_bind _ _ (rmw_ends _ _ _ WfS D)). intros [_ We]. intros _. exact (kinds_RW _ e WfS Rs We).
  - (* a fence: impossible *)
    intros _. exact (kinds_FR _ e Ps_wf Fp Rp).
Qed.

(* ---- 5. co and fr of the source, for Atomicity ---- *)

(* co of Xs is a strict order: irreflexive, and transitive (doubly negated). *)
Lemma co_source_irreflexive : irreflexive (co Xs).
Proof. exact (wf_consistent_co_irreflexive _ Xs_wf). Qed.

Lemma co_source_transitive : forall a b c, co Xs a b -> co Xs b c -> ~ ~ co Xs a c.
Proof.
  intros a b c Ab Bc. apply (nn_incl _ _ a c (wf_consistent_co_transitive _ Xs_wf)). exists b. auto.
Qed.

(* fr of Xs is rf^-1; co (both directions doubly negated). *)
Lemma fr_source_def : forall a b, fr Xs a b -> ~ ~ seq (inv (rf Xs)) (co Xs) a b.
Proof.
  intros a b H N. apply (wf_consistent_fr_def _ Xs_wf a b). left. split; assumption.
Qed.

Lemma fr_source_intro : forall a b, seq (inv (rf Xs)) (co Xs) a b -> ~ ~ fr Xs a b.
Proof.
  intros a b H N. apply (wf_consistent_fr_def _ Xs_wf a b). right. split; assumption.
Qed.

End Facts.
