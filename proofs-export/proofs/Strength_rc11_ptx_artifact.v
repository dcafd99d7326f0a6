(* Strength_rc11_ptx_artifact.v -- hand-written, NOT generated.

   Lemmas about the generated statement of mappings/rc11-ptx-artifact.map
   (Obligations_rc11_ptx_artifact.v), on top of Compilation_rc11_ptx_artifact.v: how the
   tags of an event go from the source execution Xs to the target execution Xt. Fences and
   initial writes go across; an atomic of RC11 is strong in PTX, a release a release, an
   acquire an acquire; the scope tags go across, so scope inclusion [incl] of RC11 between
   non-initial events is [incl] of PTX, and two atomics to one location in each other's
   scope are morally strong. Also: the halves of an RMW are atomics with the same scope.

   The test suite compiles this file against a fresh export
   (mapcheck export-coq mappings/rc11-ptx-artifact.map). When the generated statement
   changes, regenerate the export and fix this file.

   As in the Compilation file, the statement gives each inclusion only doubly negated, so
   the lemmas conclude [~ ~ ...]; nothing classical is used.

   How: every non-initial event of the source skeleton is exactly one class, with no tag
   beyond the class's own ([searched_on]); the lowering sends the class to its target
   instruction. One case split over the 41 classes ([skel_tags]) relates the tags of the
   two skeletons at such an event; [exec_of] brings that to Xs and Xt ([tags_exec]); the
   lemmas at the end use only that. The same for the RMW classes of an rmw pair
   ([skel_rmw_tags]). [incl] is fixed by well-formedness: [in_own_scope] both ways. *)
From Mapcheck Require Import Rel Dec Checks Exec Model_wf Mirror_wf Program Model_rc11_scoped Mirror_rc11_scoped Model_ptx_v6 Obligations_rc11_ptx_artifact Compilation_rc11_ptx_artifact.

(* ------------------------------------------------------------------ *)
(* Labels of an execution of a skeleton                                *)

(* [exec_of] cuts each label of the skeleton to the execution's events. *)
Lemma lab_down : forall f : exec -> set,
  (forall P X, exec_of P X -> set_same (f X) (set_inter (f P) (E X))) ->
  forall P X e, exec_of P X -> f X e -> f P e.
Proof. intros f Hf P X e O H. exact (proj1 (proj1 (Hf _ _ O) e H)). Qed.

Lemma lab_up : forall f : exec -> set,
  (forall P X, exec_of P X -> set_same (f X) (set_inter (f P) (E X))) ->
  forall P X e, exec_of P X -> f P e -> E X e -> f X e.
Proof. intros f Hf P X e O H Ee. exact (proj2 (Hf _ _ O) e (conj H Ee)). Qed.

(* ------------------------------------------------------------------ *)
(* Well-formedness facts (any execution)                               *)

(* An initial write is a write, so neither a read nor a fence. *)
Lemma R_not_IW : forall X x, wf_consistent X -> R X x -> ~ IW X x.
Proof.
  intros X x Wf Rx I. apply (nn_set_incl _ _ x (wf_consistent_IW_writes _ Wf) I).
  intro Wx. exact (kinds_RW _ x Wf Rx Wx).
Qed.

Lemma F_not_IW : forall X x, wf_consistent X -> F X x -> ~ IW X x.
Proof.
  intros X x Wf Fx I. apply (nn_set_incl _ _ x (wf_consistent_IW_writes _ Wf) I).
  intro Wx. exact (kinds_FW _ x Wf Fx Wx).
Qed.

(* An RMW event is a read or a write, so not a fence. *)
Lemma F_not_RMW : forall X x, wf_consistent X -> F X x -> RMW X x -> False.
Proof.
  intros X x Wf Fx Mx. apply (rmw_half X x Wf Mx). intros [[y D]|[y D]].
  - apply (rmw_ends _ _ _ Wf D). intros [Rx _]. exact (kinds_FR _ x Wf Fx Rx).
  - apply (rmw_ends _ _ _ Wf D). intros [_ Wx]. exact (kinds_FW _ x Wf Fx Wx).
Qed.

(* M is R | W. *)
Lemma M_RW : forall X x, wf_consistent X -> M X x -> ~ ~ (R X x \/ W X x).
Proof.
  intros X x Wf Mx N. apply (wf_consistent_M_def _ Wf x). left. split; [exact Mx | exact N].
Qed.

Lemma RW_M : forall X x, wf_consistent X -> R X x \/ W X x -> ~ ~ M X x.
Proof.
  intros X x Wf H N. apply (wf_consistent_M_def _ Wf x). right. split; [exact H | exact N].
Qed.

(* incl lies in the events. *)
Lemma incl_in_events : forall X a b, wf_consistent X -> incl X a b -> ~ ~ (E X a /\ E X b).
Proof.
  intros X a b Wf H N. apply (wf_consistent_relations_in_events _ Wf a b).
  split; [cbv [union]; tauto | exact N].
Qed.

(* int and scta are symmetric and transitive (sgpu transitive), int lies within scta,
   scta within sgpu, rmw within int. *)
Lemma int_sym : forall X a b, wf_consistent X -> int X a b -> ~ ~ int X b a.
Proof.
  intros X a b Wf H N. apply (wf_consistent_int_equivalence _ Wf a b). right; left. split; [exact H | exact N].
Qed.

Lemma int_trans : forall X a b c, wf_consistent X -> int X a b -> int X b c -> ~ ~ int X a c.
Proof.
  intros X a b c Wf H1 H2 N. apply (wf_consistent_int_equivalence _ Wf a c). right; right.
  split; [exists b; split; assumption | exact N].
Qed.

Lemma scta_trans : forall X a b c, wf_consistent X -> scta X a b -> scta X b c -> ~ ~ scta X a c.
Proof.
  intros X a b c Wf H1 H2 N. apply (wf_consistent_scope_equivalences _ Wf a c). right; right.
  split; [exists b; split; assumption | exact N].
Qed.

Lemma sgpu_trans : forall X a b c, wf_consistent X -> sgpu X a b -> sgpu X b c -> ~ ~ sgpu X a c.
Proof.
  intros X a b c Wf H1 H2 N. apply (wf_consistent_scope_equivalences _ Wf a c). left; right.
  split; [exists b; split; assumption | exact N].
Qed.

Lemma ssg_trans : forall X a b c, wf_consistent X -> ssg X a b -> ssg X b c -> ~ ~ ssg X a c.
Proof.
  intros X a b c Wf H1 H2 N. apply (wf_consistent_subgroup_equivalence _ Wf a c). right.
  split; [exists b; split; assumption | exact N].
Qed.

Lemma scluster_trans : forall X a b c, wf_consistent X -> scluster X a b -> scluster X b c ->
  ~ ~ scluster X a c.
Proof.
  intros X a b c Wf H1 H2 N. apply (wf_consistent_cluster_equivalence _ Wf a c). right.
  split; [exists b; split; assumption | exact N].
Qed.

Lemma scta_scluster : forall X a b, wf_consistent X -> scta X a b -> ~ ~ scluster X a b.
Proof. intros X a b Wf H. exact (nn_incl _ _ a b (wf_consistent_cta_in_cluster _ Wf) H). Qed.

Lemma int_ssg : forall X a b, wf_consistent X -> int X a b -> ~ ~ ssg X a b.
Proof. intros X a b Wf H. exact (nn_incl _ _ a b (wf_consistent_thread_in_subgroup _ Wf) H). Qed.

Lemma int_scta : forall X a b, wf_consistent X -> int X a b -> ~ ~ scta X a b.
Proof. intros X a b Wf H. exact (nn_incl _ _ a b (wf_consistent_thread_in_cta _ Wf) H). Qed.

Lemma scta_sgpu : forall X a b, wf_consistent X -> scta X a b -> ~ ~ sgpu X a b.
Proof. intros X a b Wf H. exact (nn_incl _ _ a b (wf_consistent_cta_in_gpu _ Wf) H). Qed.

Lemma rmw_int : forall X a b, wf_consistent X -> rmw X a b -> ~ ~ int X a b.
Proof.
  intros X a b Wf H. apply (nn_bind _ _ (nn_incl _ _ a b (wf_consistent_rmw_shape _ Wf) H)).
  intros [_ [P _]]. exact (nn_incl _ _ a b (wf_consistent_po_int _ Wf) P).
Qed.

(* incl is in_own_scope both ways (incl_def), hence symmetric. *)
Lemma incl_spec_of : forall X a b, wf_consistent X -> incl X a b -> ~ ~ wf_incl_spec X a b.
Proof. intros X a b Wf H N. apply (wf_consistent_incl_def _ Wf a b). left. split; assumption. Qed.

Lemma incl_of_spec : forall X a b, wf_consistent X -> wf_incl_spec X a b -> ~ ~ incl X a b.
Proof. intros X a b Wf H N. apply (wf_consistent_incl_def _ Wf a b). right. split; assumption. Qed.

Lemma incl_sym : forall X a b, wf_consistent X -> incl X a b -> ~ ~ incl X b a.
Proof.
  intros X a b Wf H. apply (nn_bind _ _ (incl_spec_of _ _ _ Wf H)). intros [Ab Ba].
  apply (incl_of_spec _ _ _ Wf). split; assumption.
Qed.

(* ------------------------------------------------------------------ *)
(* What the case splits establish                                      *)

(* The tags of a non-initial source event e in S, against the target's in T: the kind
   fence and every order and scope tag go across (an SC RMW becomes acq_rel), and S has no
   CON and no OpenCL scope. *)
Definition tags_go (S T : exec) (e : event) : Prop :=
  (F S e -> F T e) /\
  (RLX S e -> RLX T e) /\ (ACQ S e -> ACQ T e) /\ (REL S e -> REL T e) /\
  (ACQ_REL S e -> ACQ_REL T e) /\ (SC S e -> SC T e \/ ACQ_REL T e) /\ ~ CON S e /\
  (CTA S e -> CTA T e) /\ (GPU S e -> GPU T e) /\ (SYS S e -> SYS T e) /\
  ~ WI S e /\ ~ SG S e /\ ~ WG S e /\ ~ DEV S e /\ ~ ALL S e /\ ~ QF S e /\ ~ DV S e /\
  ~ CLUSTER S e.

(* The halves r, w of an rmw pair in X: both have an order tag of an atomic, and w's scope
   is r's (w has no other scope tag). *)
Definition rmw_tags (X : exec) (r w : event) : Prop :=
  (RLX X r \/ ACQ X r \/ REL X r \/ ACQ_REL X r \/ SC X r) /\
  (RLX X w \/ ACQ X w \/ REL X w \/ ACQ_REL X w \/ SC X w) /\
  (CTA X w -> CTA X r) /\ (GPU X w -> GPU X r) /\ (SYS X w -> SYS X r) /\
  ~ WI X w /\ ~ SG X w /\ ~ WG X w /\ ~ DEV X w /\ ~ ALL X w /\ ~ QF X w /\ ~ DV X w /\
  ~ CLUSTER X w.

(* Take apart the set and relation operators of hypotheses about one event or pair. *)
Ltac split_sets :=
  repeat match goal with
  | H : _ /\ _ |- _ => destruct H
  | H : set_inter _ _ _ |- _ => destruct H
  | H : set_minus _ _ _ |- _ => destruct H
  | H : cross _ _ _ _ |- _ => destruct H
  | H : inter _ _ _ _ |- _ => destruct H
  end.

(* A goal made of atoms, their disjunctions, and contradictions among the hypotheses. *)
Ltac pick := first [ assumption | left; pick | right; pick ].

(* One conjunct of [tags_go] once both tag sets are hypotheses; Wf : wf_consistent of
   the source skeleton, for the kinds that exclude each other. *)
Ltac close_tag Wf e :=
  intro; first
  [ pick
  | contradiction
  | exfalso; apply (kinds_FR _ e Wf); assumption
  | exfalso; apply (kinds_FW _ e Wf); assumption
  | exfalso; apply (F_not_RMW _ e Wf); assumption ].

(* ------------------------------------------------------------------ *)

Section Strength.
Variables (Ps Pt : program) (Xs Xt : exec).
Hypothesis C : compilation Ps Pt Xs Xt.

Lemma Os : exec_of (pr Ps) Xs.
Proof. exact (Xs_of _ _ _ _ C). Qed.
Lemma Ot : exec_of (pr Pt) Xt.
Proof. exact (Xt_of _ _ _ _ C). Qed.

(* ---- The source skeleton: one case split over the classes ---- *)

Lemma skel_tags : forall e, E (pr Ps) e -> ~ IW (pr Ps) e -> ~ ~ tags_go (pr Ps) (pr Pt) e.
Proof.
  intros e Ee Ne. pose proof (Ps_wf _ _ _ _ C) as Wf.
  destruct (c_searched _ _ _ _ C) as (_ & _ & _ & _ & _ & _ & _ & _ & _ & _ & _ & One & _).
  apply (nn_bind _ _ (nn_set_incl _ _ e One (conj Ee Ne))). intro U. clear One.
  pose proof (low _ _ _ _ C) as L. unfold lowering in L.
  repeat match goal with H : _ /\ _ |- _ => destruct H end.
  repeat match goal with H : set_union _ _ e |- _ => destruct H as [H|H] end;
  split_sets;
  match goal with
  | H : ?c (pr Ps) e, Hc : set_empty (set_minus (?c (pr Ps)) (?o (pr Pt))) |- _ =>
      apply (nn_bind _ _ (nn_set_incl _ _ e Hc H)); intro Ho; apply nn_ret;
      hnf in H, Ho; split_sets; unfold tags_go; repeat split; close_tag Wf e
  end.
Qed.

(* Both halves of an rmw pair of the source skeleton are of one RMW class. *)
Lemma skel_rmw_tags : forall r w, rmw (pr Ps) r w -> ~ ~ rmw_tags (pr Ps) r w.
Proof.
  intros r w H.
  destruct (c_searched _ _ _ _ C) as (_ & _ & _ & _ & _ & _ & _ & _ & _ & _ & _ & _ & Rmw & _).
  apply (nn_bind _ _ (nn_incl _ _ r w Rmw H)). intros [_ U]. clear Rmw. apply nn_ret.
  repeat match goal with H : union _ _ r w |- _ => destruct H as [H|H] end;
  split_sets;
  match goal with
  | H1 : ?c (pr Ps) r, H2 : ?c (pr Ps) w |- _ =>
      hnf in H1, H2; split_sets; unfold rmw_tags; repeat split;
      first [ pick | intro; first [ assumption | contradiction ] ]
  end.
Qed.

(* ---- Transport to the executions ---- *)

Lemma tags_exec : forall e, E Xs e -> ~ IW Xs e -> ~ ~ tags_go Xs Xt e.
Proof.
  intros e Es Ni. pose proof Os as Os. pose proof Ot as Ot.
  pose proof (exec_of_E _ _ Os e Es) as Pe.
  assert (Np : ~ IW (pr Ps) e) by (intro I; exact (Ni (lab_up _ exec_of_IW _ _ e Os I Es))).
  apply (nn_bind _ _ (source_events_in_target _ _ _ _ C e Es)). intro Et.
  apply (nn_bind _ _ (skel_tags e Pe Np)).
  intros (HF & HRLX & HACQ & HREL & HAR & HSC & HCON & HCTA & HGPU & HSYS & HWI & HSG & HWG & HDEV & HALL & HQF & HDV & HCLUSTER).
  apply nn_ret. unfold tags_go.
  repeat split; intro H.
  - exact (lab_up _ exec_of_F _ _ e Ot (HF (lab_down _ exec_of_F _ _ e Os H)) Et).
  - exact (lab_up _ exec_of_RLX _ _ e Ot (HRLX (lab_down _ exec_of_RLX _ _ e Os H)) Et).
  - exact (lab_up _ exec_of_ACQ _ _ e Ot (HACQ (lab_down _ exec_of_ACQ _ _ e Os H)) Et).
  - exact (lab_up _ exec_of_REL _ _ e Ot (HREL (lab_down _ exec_of_REL _ _ e Os H)) Et).
  - exact (lab_up _ exec_of_ACQ_REL _ _ e Ot (HAR (lab_down _ exec_of_ACQ_REL _ _ e Os H)) Et).
  - destruct (HSC (lab_down _ exec_of_SC _ _ e Os H)) as [H'|H'].
    + left. exact (lab_up _ exec_of_SC _ _ e Ot H' Et).
    + right. exact (lab_up _ exec_of_ACQ_REL _ _ e Ot H' Et).
  - exact (HCON (lab_down _ exec_of_CON _ _ e Os H)).
  - exact (lab_up _ exec_of_CTA _ _ e Ot (HCTA (lab_down _ exec_of_CTA _ _ e Os H)) Et).
  - exact (lab_up _ exec_of_GPU _ _ e Ot (HGPU (lab_down _ exec_of_GPU _ _ e Os H)) Et).
  - exact (lab_up _ exec_of_SYS _ _ e Ot (HSYS (lab_down _ exec_of_SYS _ _ e Os H)) Et).
  - exact (HWI (lab_down _ exec_of_WI _ _ e Os H)).
  - exact (HSG (lab_down _ exec_of_SG _ _ e Os H)).
  - exact (HWG (lab_down _ exec_of_WG _ _ e Os H)).
  - exact (HDEV (lab_down _ exec_of_DEV _ _ e Os H)).
  - exact (HALL (lab_down _ exec_of_ALL _ _ e Os H)).
  - exact (HQF (lab_down _ exec_of_QF _ _ e Os H)).
  - exact (HDV (lab_down _ exec_of_DV _ _ e Os H)).
  - exact (HCLUSTER (lab_down _ exec_of_CLUSTER _ _ e Os H)).
Qed.

Lemma rmw_tags_exec : forall r w, rmw Xs r w -> ~ ~ rmw_tags Xs r w.
Proof.
  intros r w H. pose proof Os as Os.
  destruct (proj1 (exec_of_rmw _ _ Os) r w H) as [Hp [Er Ew]].
  apply (nn_bind _ _ (skel_rmw_tags r w Hp)).
  intros (Or & Ow & HCTA & HGPU & HSYS & HWI & HSG & HWG & HDEV & HALL & HQF & HDV & HCLUSTER).
  apply nn_ret. unfold rmw_tags. repeat split.
  - destruct Or as [H'|[H'|[H'|[H'|H']]]];
      [left | right; left | right; right; left | right; right; right; left | right; right; right; right];
      first [ exact (lab_up _ exec_of_RLX _ _ r Os H' Er) | exact (lab_up _ exec_of_ACQ _ _ r Os H' Er)
            | exact (lab_up _ exec_of_REL _ _ r Os H' Er) | exact (lab_up _ exec_of_ACQ_REL _ _ r Os H' Er)
            | exact (lab_up _ exec_of_SC _ _ r Os H' Er) ].
  - destruct Ow as [H'|[H'|[H'|[H'|H']]]];
      [left | right; left | right; right; left | right; right; right; left | right; right; right; right];
      first [ exact (lab_up _ exec_of_RLX _ _ w Os H' Ew) | exact (lab_up _ exec_of_ACQ _ _ w Os H' Ew)
            | exact (lab_up _ exec_of_REL _ _ w Os H' Ew) | exact (lab_up _ exec_of_ACQ_REL _ _ w Os H' Ew)
            | exact (lab_up _ exec_of_SC _ _ w Os H' Ew) ].
  - intro H'. exact (lab_up _ exec_of_CTA _ _ r Os (HCTA (lab_down _ exec_of_CTA _ _ w Os H')) Er).
  - intro H'. exact (lab_up _ exec_of_GPU _ _ r Os (HGPU (lab_down _ exec_of_GPU _ _ w Os H')) Er).
  - intro H'. exact (lab_up _ exec_of_SYS _ _ r Os (HSYS (lab_down _ exec_of_SYS _ _ w Os H')) Er).
  - intro H'. exact (HWI (lab_down _ exec_of_WI _ _ w Os H')).
  - intro H'. exact (HSG (lab_down _ exec_of_SG _ _ w Os H')).
  - intro H'. exact (HWG (lab_down _ exec_of_WG _ _ w Os H')).
  - intro H'. exact (HDEV (lab_down _ exec_of_DEV _ _ w Os H')).
  - intro H'. exact (HALL (lab_down _ exec_of_ALL _ _ w Os H')).
  - intro H'. exact (HQF (lab_down _ exec_of_QF _ _ w Os H')).
  - intro H'. exact (HDV (lab_down _ exec_of_DV _ _ w Os H')).
  - intro H'. exact (HCLUSTER (lab_down _ exec_of_CLUSTER _ _ w Os H')).
Qed.

(* ---- The lowering's facts used below ---- *)

Lemma low_iw_s_t : set_empty (set_minus (IW (pr Ps)) (IW (pr Pt))).
Proof.
  pose proof (low _ _ _ _ C) as L. unfold lowering in L.
  repeat match goal with H : _ /\ _ |- _ => destruct H end. assumption.
Qed.

Lemma low_iw_t_s : set_empty (set_minus (IW (pr Pt)) (IW (pr Ps))).
Proof.
  pose proof (low _ _ _ _ C) as L. unfold lowering in L.
  repeat match goal with H : _ /\ _ |- _ => destruct H end. assumption.
Qed.

Lemma low_scta : empty (minus (inter (scta (pr Ps)) (cross (shared Ps Pt) (shared Ps Pt))) (scta (pr Pt))).
Proof.
  pose proof (low _ _ _ _ C) as L. unfold lowering in L. unfold shared.
  repeat match goal with H : _ /\ _ |- _ => destruct H end. assumption.
Qed.

Lemma low_sgpu : empty (minus (inter (sgpu (pr Ps)) (cross (shared Ps Pt) (shared Ps Pt))) (sgpu (pr Pt))).
Proof.
  pose proof (low _ _ _ _ C) as L. unfold lowering in L. unfold shared.
  repeat match goal with H : _ /\ _ |- _ => destruct H end. assumption.
Qed.

Lemma scta_in_target : forall a b, scta Xs a b -> ~ ~ scta Xt a b.
Proof. apply (lift_rel _ _ _ _ C); [exact exec_of_scta | exact low_scta]. Qed.

Lemma sgpu_in_target : forall a b, sgpu Xs a b -> ~ ~ sgpu Xt a b.
Proof. apply (lift_rel _ _ _ _ C); [exact exec_of_sgpu | exact low_sgpu]. Qed.

(* The target skeleton: a non-initial event is exactly one instruction, none of them RED. *)
Lemma skel_target_not_red : forall e, E (pr Pt) e -> ~ IW (pr Pt) e -> ~ RED (pr Pt) e.
Proof.
  intros e Ee Ne Red. pose proof (gc _ _ _ _ C) as G. unfold guards_compiled in G.
  repeat match goal with H : _ /\ _ |- _ => destruct H end.
  match goal with H : set_empty (set_minus (set_minus (E (pr Pt)) (IW (pr Pt))) _) |- _ =>
    apply (H e); split; [split; assumption|] end.
  intro U.
  repeat match goal with H : set_union _ _ e |- _ => destruct H as [H|H] end;
  split_sets; contradiction.
Qed.

(* A memory event of Xs is one of Xt. *)
Lemma mem_in_target : forall e, M Xs e -> ~ ~ M Xt e.
Proof.
  intros e Me. pose proof (Xs_wf _ _ _ _ C) as WfS. pose proof (Xt_wf _ _ _ _ C) as WfT.
  apply (nn_bind _ _ (M_RW _ _ WfS Me)). intros [Re|We].
  - apply (nn_bind _ _ (reads_in_target _ _ _ _ C e Re)). intro Rt. exact (RW_M _ _ WfT (or_introl Rt)).
  - apply (nn_bind _ _ (writes_in_target _ _ _ _ C e We)). intro Wt. exact (RW_M _ _ WfT (or_intror Wt)).
Qed.

(* in_own_scope of a non-initial source event goes across. *)
Lemma in_own_scope_in_target : forall u v, E Xs u -> E Xs v -> ~ IW Xs u ->
  wf_in_own_scope Xs u v -> ~ ~ wf_in_own_scope Xt u v.
Proof.
  intros u v Eu Ev Ni H.
  apply (nn_bind _ _ (tags_exec u Eu Ni)).
  intros (_ & _ & _ & _ & _ & _ & _ & HCTA & HGPU & HSYS & HWI & HSG & HWG & HDEV & HALL & HQF & HDV & HCLUSTER).
  destruct H as [[[z [[Hw <-] _]] | [[z [[Hsg <-] _]] | [z [[Hcl <-] _]]]] | [[z [[Hc <-] S]] | [[z [[Hg <-] S]] | [z [[Hs <-] _]]]]].
  - intros _. exact (HWI Hw).
  - intros _. exact (HSG Hsg).
  - intros _. exact (HCLUSTER Hcl).
  - destruct Hc as [Hc|Hc]; [| intros _; exact (HWG Hc)].
    apply (nn_bind _ _ (scta_in_target u v S)). intro St.
    apply nn_ret. right; left. exists u. split; [split; [left; exact (HCTA Hc) | reflexivity] | exact St].
  - destruct Hg as [Hg|[Hg|Hg]]; [| intros _; exact (HDEV Hg) | intros _; exact (HQF Hg)].
    apply (nn_bind _ _ (sgpu_in_target u v S)). intro St.
    apply nn_ret. right; right; left. exists u. split; [split; [left; exact (HGPU Hg) | reflexivity] | exact St].
  - destruct Hs as [Hs|[Hs|Hs]]; [| intros _; exact (HALL Hs) | intros _; exact (HDV Hs)].
    apply (nn_bind _ _ (source_events_in_target _ _ _ _ C u Eu)). intro Tu.
    apply (nn_bind _ _ (source_events_in_target _ _ _ _ C v Ev)). intro Tv.
    apply nn_ret. right; right; right. exists u. split; [split; [left; exact (HSYS Hs) | reflexivity] | split; assumption].
Qed.

(* ------------------------------------------------------------------ *)
(* The lemmas                                                          *)

Lemma fences_in_target : forall e, F Xs e -> ~ ~ F Xt e.
Proof.
  intros e Fe. pose proof (Xs_wf _ _ _ _ C) as WfS.
  pose proof (proj2 (proj1 (exec_of_F _ _ Os) e Fe)) as Es.
  apply (nn_bind _ _ (tags_exec e Es (F_not_IW _ _ WfS Fe))). intros [HF _].
  apply nn_ret, HF, Fe.
Qed.

Lemma iw_in_target : forall e, IW Xs e -> ~ ~ IW Xt e.
Proof.
  intros e I. destruct (proj1 (exec_of_IW _ _ Os) e I) as [Ip Es].
  apply (nn_bind _ _ (nn_set_incl _ _ e low_iw_s_t Ip)). intro It.
  apply (nn_bind _ _ (source_events_in_target _ _ _ _ C e Es)). intro Et.
  apply nn_ret. exact (lab_up _ exec_of_IW _ _ e Ot It Et).
Qed.

Lemma iw_of_target : forall e, E Xs e -> IW Xt e -> ~ ~ IW Xs e.
Proof.
  intros e Es I. pose proof (lab_down _ exec_of_IW _ _ e Ot I) as It.
  apply (nn_bind _ _ (nn_set_incl _ _ e low_iw_t_s It)). intro Ip.
  apply nn_ret. exact (lab_up _ exec_of_IW _ _ e Os Ip Es).
Qed.

Lemma atomic_strong : forall e, ~ IW Xs e -> rc11_scoped_A Xs e -> ~ ~ ptx_v6_STRONG_M Xt e.
Proof.
  intros e Ni [Me O].
  pose proof (proj2 (proj1 (exec_of_M _ _ Os) e Me)) as Es.
  apply (nn_bind _ _ (tags_exec e Es Ni)).
  intros (_ & HRLX & HACQ & HREL & HAR & HSC & HCON & _).
  apply (nn_bind _ _ (mem_in_target e Me)). intro Mt.
  apply nn_ret. split; [exact Mt|].
  destruct O as [[H|[H|H]]|[H|[H|H]]];
    [apply HRLX in H | apply HACQ in H | apply HREL in H | apply HAR in H | apply HSC in H
    | exfalso; exact (HCON H)];
    try destruct H as [H|H]; pick.
Qed.

Lemma release_write : forall e, ~ IW Xs e -> W Xs e -> rc11_scoped_E_REL Xs e -> ~ ~ ptx_v6_W_REL Xt e.
Proof.
  intros e Ni We O.
  pose proof (proj2 (proj1 (exec_of_W _ _ Os) e We)) as Es.
  apply (nn_bind _ _ (tags_exec e Es Ni)).
  intros (_ & _ & _ & HREL & HAR & HSC & _).
  apply (nn_bind _ _ (writes_in_target _ _ _ _ C e We)). intro Wt.
  apply nn_ret. split; [exact Wt|].
  destruct O as [H|[H|H]]; [apply HREL in H | apply HAR in H | apply HSC in H];
    try destruct H as [H|H]; pick.
Qed.

Lemma release_fence : forall e, F Xs e -> rc11_scoped_E_REL Xs e -> ~ ~ ptx_v6_F_REL Xt e.
Proof.
  intros e Fe O. pose proof (Xs_wf _ _ _ _ C) as WfS.
  pose proof (proj2 (proj1 (exec_of_F _ _ Os) e Fe)) as Es.
  apply (nn_bind _ _ (tags_exec e Es (F_not_IW _ _ WfS Fe))).
  intros (HF & _ & _ & HREL & HAR & HSC & _).
  apply nn_ret. split; [exact (HF Fe)|].
  destruct O as [H|[H|H]]; [apply HREL in H | apply HAR in H | apply HSC in H];
    try destruct H as [H|H]; pick.
Qed.

Lemma acquire_read : forall e, R Xs e -> rc11_scoped_E_ACQ Xs e -> ~ ~ ptx_v6_R_ACQ Xt e.
Proof.
  intros e Re O. pose proof (Xs_wf _ _ _ _ C) as WfS.
  pose proof (proj2 (proj1 (exec_of_R _ _ Os) e Re)) as Es.
  apply (nn_bind _ _ (tags_exec e Es (R_not_IW _ _ WfS Re))).
  intros (_ & _ & HACQ & _ & HAR & HSC & HCON & _).
  apply (nn_bind _ _ (reads_in_target _ _ _ _ C e Re)). intro Rt.
  apply nn_ret. split; [exact Rt|].
  destruct O as [[H|H]|[H|H]]; [apply HACQ in H | apply HAR in H | apply HSC in H
    | exfalso; exact (HCON H)];
    try destruct H as [H|H]; pick.
Qed.

Lemma acquire_fence : forall e, F Xs e -> rc11_scoped_E_ACQ Xs e -> ~ ~ ptx_v6_F_ACQ Xt e.
Proof.
  intros e Fe O. pose proof (Xs_wf _ _ _ _ C) as WfS.
  pose proof (proj2 (proj1 (exec_of_F _ _ Os) e Fe)) as Es.
  apply (nn_bind _ _ (tags_exec e Es (F_not_IW _ _ WfS Fe))).
  intros (HF & _ & HACQ & _ & HAR & HSC & HCON & _).
  apply nn_ret. split; [exact (HF Fe)|].
  destruct O as [[H|H]|[H|H]]; [apply HACQ in H | apply HAR in H | apply HSC in H
    | exfalso; exact (HCON H)];
    try destruct H as [H|H]; pick.
Qed.

Lemma reads_not_red : forall e, R Xs e -> ~ RED Xt e.
Proof.
  intros e Re Red. pose proof (Ps_wf _ _ _ _ C) as WfP.
  destruct (proj1 (exec_of_R _ _ Os) e Re) as [Rp Es].
  destruct (proj1 (exec_of_RED _ _ Ot) e Red) as [Redp Et].
  apply (skel_target_not_red e (exec_of_E _ _ Ot e Et)); [| exact Redp].
  intro It. apply (nn_set_incl _ _ e low_iw_t_s It). exact (R_not_IW _ _ WfP Rp).
Qed.

Lemma incl_in_target : forall a b, ~ IW Xs a -> ~ IW Xs b -> incl Xs a b -> ~ ~ incl Xt a b.
Proof.
  intros a b Na Nb I. pose proof (Xs_wf _ _ _ _ C) as WfS. pose proof (Xt_wf _ _ _ _ C) as WfT.
  apply (nn_bind _ _ (incl_in_events _ _ _ WfS I)). intros [Ea Eb].
  apply (nn_bind _ _ (incl_spec_of _ _ _ WfS I)). intros [H1 H2].
  apply (nn_bind _ _ (in_own_scope_in_target a b Ea Eb Na H1)). intro T1.
  apply (nn_bind _ _ (in_own_scope_in_target b a Eb Ea Nb H2)). intro T2.
  apply (incl_of_spec _ _ _ WfT). split; assumption.
Qed.

Lemma rmw_atomic : forall r w, rmw Xs r w -> ~ ~ (rc11_scoped_A Xs r /\ rc11_scoped_A Xs w).
Proof.
  intros r w H. pose proof (Xs_wf _ _ _ _ C) as WfS.
  apply (nn_bind _ _ (rmw_tags_exec r w H)). intros (Or & Ow & _).
  apply (nn_bind _ _ (rmw_ends _ _ _ WfS H)). intros [Rr Ww].
  apply (nn_bind _ _ (RW_M _ _ WfS (or_introl Rr))). intro Mr.
  apply (nn_bind _ _ (RW_M _ _ WfS (or_intror Ww))). intro Mw.
  apply nn_ret. split; split; try assumption;
    [destruct Or as [H'|[H'|[H'|[H'|H']]]] | destruct Ow as [H'|[H'|[H'|[H'|H']]]]]; pick.
Qed.

Lemma rmw_incl : forall r w x, rmw Xs r w -> incl Xs w x -> ~ ~ incl Xs r x.
Proof.
  intros r w x H I. pose proof (Xs_wf _ _ _ _ C) as Wf.
  apply (nn_bind _ _ (rmw_tags_exec r w H)).
  intros (_ & _ & HCTA & HGPU & HSYS & HWI & HSG & HWG & HDEV & HALL & HQF & HDV & HCLUSTER).
  apply (nn_bind _ _ (rmw_int _ _ _ Wf H)). intro Irw.
  apply (nn_bind _ _ (int_sym _ _ _ Wf Irw)). intro Iwr.
  apply (nn_bind _ _ (int_scta _ _ _ Wf Irw)). intro Crw.
  apply (nn_bind _ _ (int_scta _ _ _ Wf Iwr)). intro Cwr.
  apply (nn_bind _ _ (scta_sgpu _ _ _ Wf Crw)). intro Grw.
  apply (nn_bind _ _ (scta_sgpu _ _ _ Wf Cwr)). intro Gwr.
  destruct (proj1 (exec_of_rmw _ _ Os) r w H) as [_ [Er _]].
  apply (nn_bind _ _ (incl_spec_of _ _ _ Wf I)). intros [H1 H2].
  (* r is in its own scope with x as w is *)
  assert (A : ~ ~ wf_in_own_scope Xs r x).
  { destruct H1 as [[[z [[Hw <-] _]] | [[z [[Hsg <-] _]] | [z [[Hcl <-] _]]]] | [[z [[Hc <-] S]] | [[z [[Hg <-] S]] | [z [[Hs <-] [_ Ex]]]]]].
    - intros _. exact (HWI Hw).
    - intros _. exact (HSG Hsg).
    - intros _. exact (HCLUSTER Hcl).
    - destruct Hc as [Hc|Hc]; [| intros _; exact (HWG Hc)].
      apply (nn_bind _ _ (scta_trans _ _ _ _ Wf Crw S)). intro S'.
      apply nn_ret. right; left. exists r. split; [split; [left; exact (HCTA Hc) | reflexivity] | exact S'].
    - destruct Hg as [Hg|[Hg|Hg]]; [| intros _; exact (HDEV Hg) | intros _; exact (HQF Hg)].
      apply (nn_bind _ _ (sgpu_trans _ _ _ _ Wf Grw S)). intro S'.
      apply nn_ret. right; right; left. exists r. split; [split; [left; exact (HGPU Hg) | reflexivity] | exact S'].
    - destruct Hs as [Hs|[Hs|Hs]]; [| intros _; exact (HALL Hs) | intros _; exact (HDV Hs)].
      apply nn_ret. right; right; right. exists r. split; [split; [left; exact (HSYS Hs) | reflexivity] | split; assumption]. }
  (* x is in its own scope with r as with w: r and w are one thread *)
  assert (B : ~ ~ wf_in_own_scope Xs x r).
  { destruct H2 as [[[z [[Hw <-] S]] | [[z [[Hsg <-] S]] | [z [[Hcl <-] S]]]] | [[z [[Hc <-] S]] | [[z [[Hg <-] S]] | [z [[Hs <-] [Ex _]]]]]].
    - apply (nn_bind _ _ (int_trans _ _ _ _ Wf S Iwr)). intro S'.
      apply nn_ret. left; left. exists x. split; [split; [exact Hw | reflexivity] | exact S'].
    - apply (nn_bind _ _ (int_ssg _ _ _ Wf Iwr)). intro Swr.
      apply (nn_bind _ _ (ssg_trans _ _ _ _ Wf S Swr)). intro S'.
      apply nn_ret. left; right; left. exists x. split; [split; [exact Hsg | reflexivity] | exact S'].
    - apply (nn_bind _ _ (scta_scluster _ _ _ Wf Cwr)). intro Kwr.
      apply (nn_bind _ _ (scluster_trans _ _ _ _ Wf S Kwr)). intro S'.
      apply nn_ret. left; right; right. exists x. split; [split; [exact Hcl | reflexivity] | exact S'].
    - apply (nn_bind _ _ (scta_trans _ _ _ _ Wf S Cwr)). intro S'.
      apply nn_ret. right; left. exists x. split; [split; [exact Hc | reflexivity] | exact S'].
    - apply (nn_bind _ _ (sgpu_trans _ _ _ _ Wf S Gwr)). intro S'.
      apply nn_ret. right; right; left. exists x. split; [split; [exact Hg | reflexivity] | exact S'].
    - apply nn_ret. right; right; right. exists x. split; [split; [exact Hs | reflexivity] | split; assumption]. }
  apply (nn_bind _ _ A). intro A'. apply (nn_bind _ _ B). intro B'.
  apply (incl_of_spec _ _ _ Wf). split; assumption.
Qed.

Lemma morally_strong_of_incl : forall a b, ~ IW Xs a -> ~ IW Xs b ->
  rc11_scoped_A Xs a -> rc11_scoped_A Xs b -> incl Xs a b -> loc Xs a b ->
  ~ ~ ptx_v6_morally_strong Xt a b.
Proof.
  intros a b Na Nb Aa Ab I L.
  apply (nn_bind _ _ (atomic_strong a Na Aa)). intro Sa.
  apply (nn_bind _ _ (atomic_strong b Nb Ab)). intro Sb.
  apply (nn_bind _ _ (incl_in_target a b Na Nb I)). intro It.
  apply (nn_bind _ _ (loc_in_target _ _ _ _ C a b L)). intro Lt.
  apply nn_ret. right. split; [|exact Lt].
  right; right. exists a. split; [split; [right; exact Sa | reflexivity] |].
  exists b. split; [exact It | split; [right; exact Sb | reflexivity]].
Qed.

End Strength.
